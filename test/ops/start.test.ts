import net from 'node:net';
import { createTestDatabase } from '../support/database';
import { startChild, stopChildren } from '../support/service';

/** Start-up failures are one line on stderr and a non-zero exit; HOST picks the interface. */
// Each case starts real processes (and PostgreSQL clusters): slow on a busy machine.
jest.setTimeout(180_000);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await stopChildren();
  await db.drop();
});

test('a busy port exits 1 with a message naming the port, and never says it is listening', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, resolve));
  const { port } = taken.address() as net.AddressInfo;
  try {
    const service = startChild({ DATABASE_URL: db.url, PORT: String(port) });
    expect(await service.exited).toMatchObject({ code: 1 });
    expect(service.output()).toContain(`port ${port} is already in use`);
    expect(service.output()).not.toContain('listening');
  } finally {
    taken.close();
  }
});

test('LOG_LEVEL=verbose is a configuration error naming LOG_LEVEL, not a logger stack', async () => {
  const service = startChild({ DATABASE_URL: db.url, LOG_LEVEL: 'verbose' });
  expect(await service.exited).toMatchObject({ code: 1 });
  const lines = service.output().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^Invalid configuration: LOG_LEVEL: /);
});

test('a SEARCH_MAX_RESPONSE_MB above a quarter of the heap (npm start caps it at 192 MB) is a configuration error naming both', async () => {
  const service = startChild(
    { DATABASE_URL: db.url, SEARCH_BACKEND: 'opensearch', SEARCH_URL: 'http://127.0.0.1:9', SEARCH_MAX_RESPONSE_MB: '200' },
    [process.execPath, '--max-old-space-size=192', '--import', 'tsx', 'src/main.ts'],
  );
  expect(await service.exited).toMatchObject({ code: 1 });
  const lines = service.output().trim().split('\n');
  expect(lines).toEqual([expect.stringMatching(/^Invalid configuration: SEARCH_MAX_RESPONSE_MB \(200\) must be at most a quarter of this process's heap \(\d+ MB; LEADNET_HEAP_MB/)]);
});

test('HOST binds one interface and the start-up line prints the address actually bound', async () => {
  const service = startChild({ DATABASE_URL: db.url, HOST: '127.0.0.1' });
  const url = await service.ready();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(service.output()).toMatch(/"address":"127\.0\.0\.1:\d+"/);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  const { port } = new URL(url);
  // Not on the IPv6 loopback: only 127.0.0.1 is bound.
  const v6 = await new Promise<boolean>((resolve) => {
    const s = net.connect(Number(port), '::1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
  expect(v6).toBe(false);
  service.child.kill('SIGTERM');
  expect(await service.exited).toMatchObject({ code: 0 });
});

test('a HOST that is not an address of this machine exits 1 with one line naming it', async () => {
  const service = startChild({ DATABASE_URL: db.url, HOST: '192.0.2.1' });
  expect(await service.exited).toMatchObject({ code: 1 });
  expect(service.output()).toContain('192.0.2.1 is not an address of this machine (HOST=192.0.2.1)');
});
