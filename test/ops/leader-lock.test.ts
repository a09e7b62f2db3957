// The leader/worker lock on a real PostgreSQL: one holder at a time, takeover when the holder stops
// or loses its session, and the worker stopped before the lock is lost for good.
import { Client } from 'pg';
import { createTestDatabase } from '../support/database';
import { LeaderLock, type Worker } from '../../src/db/leader';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

class CountingWorker implements Worker {
  running = false;
  starts = 0;
  start() {
    this.running = true;
    this.starts++;
  }
  async stop() {
    this.running = false;
  }
}

const KEY = 991_001;
/** Waits for a condition, generously bounded (a busy machine slows every round, not the outcome). */
const until = async (cond: () => boolean | Promise<boolean>) => {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met within 30 s');
};

/** Lock attempts (`pg_try_advisory_lock`) sent so far by every LeaderLock of this file. */
let attempts = 0;
const query = Client.prototype.query;
beforeAll(() => {
  jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: any[]) {
    if (typeof args[0] === 'string' && args[0].includes('pg_try_advisory_lock')) attempts++;
    return (query as any).apply(this, args);
  });
});
afterAll(() => jest.restoreAllMocks());

async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

test('one of several processes runs the worker; the next takes over when it stops or loses its session', async () => {
  const workers = [new CountingWorker(), new CountingWorker(), new CountingWorker()];
  const locks = workers.map((w) => new LeaderLock({ connectionString: db.url }, KEY, w, 'test-worker', { retryMs: 100 }));
  try {
    locks.forEach((l) => l.start());
    await until(() => workers.some((w) => w.running));
    // Several rounds later (each standby tried again, a few times) there is still exactly one.
    const before = attempts;
    await until(() => attempts >= before + 3 * (workers.length - 1));
    expect(workers.filter((w) => w.running)).toHaveLength(1);
    const first = workers.findIndex((w) => w.running);

    await locks[first].stop();
    expect(workers[first].running).toBe(false);
    await until(() => workers.filter((w) => w.running).length === 1);
    const second = workers.findIndex((w) => w.running);
    expect(second).not.toBe(first);

    // The database ends the leader's session (a restart, a network cut): it stops its worker and another leads.
    await sql(`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = $1 and granted`, [KEY]);
    await until(() => !workers[second].running);
    await until(() => workers.filter((w) => w.running).length === 1);
    expect(workers.filter((w) => w.running)).toHaveLength(1);
  } finally {
    await Promise.all(locks.map((l) => l.stop()));
  }
  expect(workers.every((w) => !w.running)).toBe(true);
  expect(await sql(`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1`, [KEY])).toEqual([{ n: 0 }]);
});
