import { Client } from 'pg';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { logger } from '../../src/logger';

let t: TestApp;
let pg: Client;
beforeAll(async () => {
  t = await createTestApp({ DB_POOL_SIZE: '16' });
  pg = new Client({ connectionString: t.config.databaseUrl });
  await pg.connect();
});
afterAll(async () => {
  await pg.end();
  await t.close();
});

/**
 * The writes PostgreSQL rolled back to break a deadlock or a serialization conflict, as `transactional()`
 * logs each before it runs the write again (so a conflict shows here even when its retry succeeds).
 */
function conflicts(): () => unknown[] {
  const debug = jest.spyOn(logger, 'debug');
  const warn = jest.spyOn(logger, 'warn');
  const lost = (spy: jest.SpyInstance) => spy.mock.calls.filter((c) => /lost to concurrent writes/.test(String(c[1]))).map((c) => String((c[0] as any)?.err?.message));
  return () => [...lost(debug), ...lost(warn)];
}

/** Runs `tasks` with at most `concurrency` in flight. */
async function pool<T>(tasks: Array<() => Promise<T>>, concurrency: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

const assignTo = (id: string) => ({ assignee_type: 'CompanyRetailerLocation', assignee_id: id });

/**
 * Issue 40: creates of leads assigned to a store while other leads are assigned to it took the kept
 * counts and the response rollups in opposite orders (PostgreSQL 40P01, answered 500).
 */
describe('creates and assignments to one store at once', () => {
  test('200 requests, 16 at a time: no 5xx, no deadlock even retried, every acknowledged write stored, the kept counts exact', async () => {
    const em = t.em();
    const net = await f.network(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, net.company);
    const store = net.storeNorth;
    // Leads of the other store, each moved to `store` once by a PATCH below.
    const others = (await pool(Array.from({ length: 100 }, () => () => createLead(t, admin.key, quoteRequest(assignTo(net.storeSouth.id)))), 4)).map((l) => l.id as string);
    const lost = conflicts();

    const tasks = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? () => request(t.app).post('/v1/leads').set('X-Api-Key', admin.key).send(quoteRequest(assignTo(store.id)))
        : () => request(t.app).patch(`/v1/leads/${others[(i - 1) / 2]}`).set('X-Api-Key', admin.key).send({ lead: assignTo(store.id) }),
    );
    const responses = await pool(tasks, 16);

    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((_, i) => i % 2 === 0)).toEqual(Array(100).fill(201));
    expect(statuses.filter((_, i) => i % 2 === 1)).toEqual(Array(100).fill(200));
    // Not one write lost to a deadlock: the lock order alone, not `transactional()`'s retries, keeps them apart.
    expect(lost()).toEqual([]);

    const created = responses.filter((_, i) => i % 2 === 0).map((r) => r.body.id as string);
    const { rows: stored } = await pg.query('select id, assignee_id from leads where id = any($1::uuid[])', [[...created, ...others]]);
    expect(stored).toHaveLength(200);
    expect(stored.every((r) => r.assignee_id === store.id)).toBe(true);
    // Every lead of the store has its first-response timer, and each kept count matches a count of the leads.
    const { rows: timers } = await pg.query('select count(*)::int as n from lead_response_timers where store_id = $1', [store.id]);
    expect(timers[0].n).toBe(200);
    const { rows: counts } = await pg.query(
      `select (select coalesce(sum(n), 0)::int from lead_counts where field = 'assignee_company_id,assignee_company_retailer_id' and key = $2) as kept,
              (select count(*)::int from leads where assignee_company_retailer_id = $2) as counted,
              (select coalesce(sum(received), 0)::int from lead_response_store_weeks where assignee_id = $1
                 and week = date_trunc('week', now() at time zone 'UTC')::date) as rolled`,
      [store.id, net.companyRetailer.id],
    );
    expect(counts[0].kept).toBe(counts[0].counted);
    expect(counts[0].kept).toBe(200);
    expect(counts[0].rolled).toBe(200);
  }, 180_000); // 200 writes through every trigger (kept counts, response and funnel rollups), 16 at a time on a shared machine
});
