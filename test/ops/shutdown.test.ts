import { Client } from 'pg';
import { createTestDatabase } from '../support/database';
import { startChild, gone, requestInFlight, stopChildren, type ChildService } from '../support/service';

/**
 * The real service as a child process, stopped by real signals: one shutdown path that drains HTTP, then
 * stops Apollo and the indexer, the ORM and (last) the embedded database, and exits 0.
 */
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

/** Waits for a condition, generously bounded (a busy machine slows it, not the outcome). */
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 20 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether a new connection to `url` is refused. */
const refused = (url: string) => fetch(`${url}/healthz`).then(
  () => false,
  () => true,
);

/** Connections of other sessions to the test database. */
async function connections(): Promise<number> {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  const { rows } = await c.query('select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  await c.end();
  return rows[0].n;
}

/** The JSON log lines of a child so far. */
const logLines = (service: ChildService) =>
  service
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

test.each(['SIGTERM', 'SIGINT'] as const)('with DATABASE_URL, %s ends the process: exit 0, under 5 s, no database connection left', async (signal) => {
  const service = startChild({ DATABASE_URL: db.url, LOG_LEVEL: 'debug' });
  const url = await service.ready();
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect(await connections()).toBeGreaterThan(0);

  service.child.kill(signal);
  expect(await service.exited).toMatchObject({ code: 0, signal: null });
  // Measured by the process itself (its log times), not by this busy test runner: from the signal's
  // "shutting down" to "stopped", and no step waited for a timeout (the HTTP drain found nothing to wait for).
  const lines = logLines(service);
  const from = lines.find((l) => l.msg === 'shutting down');
  const to = lines.find((l) => l.msg === 'stopped' && !l.step);
  expect(from).toMatchObject({ reason: signal });
  expect(to.time - from.time).toBeLessThan(5000);
  expect(lines.find((l) => l.step === 'HTTP server')).toMatchObject({ msg: 'stopped', outcome: 'drained' });
  // The server ends the sessions of a client that left a moment after it left.
  await until(async () => (await connections()) === 0, 'database connections left');
});

test('an in-flight request completes during the drain (the database stays up until it is answered); new connections are refused', async () => {
  const service = startChild({ DATABASE_URL: db.url });
  const url = await service.ready();
  const { accepted, response } = requestInFlight(url);
  const sendBody = await accepted;

  service.child.kill('SIGTERM');
  await service.waitFor(/"msg":"shutting down"/);
  // The listener closes right after the subscriptions stop: new connections are refused while the
  // request above is still in flight.
  await until(() => refused(url), 'new connections refused during the drain');
  sendBody();

  const res = await response;
  expect(res.status).toBeLessThan(500);
  expect(JSON.parse(res.body)).toHaveProperty('errors');
  expect(await service.exited).toMatchObject({ code: 0 });
});

test('the drain is bounded: a request that never completes is cut after SHUTDOWN_TIMEOUT_MS and the process still exits 0', async () => {
  const service = startChild({ DATABASE_URL: db.url, SHUTDOWN_TIMEOUT_MS: '300' });
  const url = await service.ready();
  const { accepted, response } = requestInFlight(url);
  await accepted; // and the body never comes
  const outcome = response.then(
    () => 'answered',
    (e: Error) => e.message,
  );

  service.child.kill('SIGTERM');
  expect(await service.exited).toMatchObject({ code: 0 });
  expect(await outcome).toMatch(/socket hang up|ECONNRESET/);
});

test('a second signal during the shutdown does not cut it short', async () => {
  const service = startChild({ DATABASE_URL: db.url });
  const url = await service.ready();
  const { accepted, response } = requestInFlight(url);
  const sendBody = await accepted;
  service.child.kill('SIGINT');
  await service.waitFor(/"msg":"shutting down"/);
  service.child.kill('SIGINT');
  await service.waitFor(/already shutting down/);
  sendBody();
  expect((await response).status).toBeLessThan(500);
  expect(await service.exited).toMatchObject({ code: 0 });
  expect(await gone(service.child.pid!)).toBe(true);
});
