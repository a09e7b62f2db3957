// Database outages, on a PostgreSQL of this file's own that it stops, starts, freezes (SIGSTOP) and
// thaws: while the database is unreachable requests answer 503 with Retry-After (REST, SPEC 7's
// generic envelope) or SERVICE_UNAVAILABLE (GraphQL), waits are bounded, /readyz answers within a
// second, and the service recovers on its own when the database returns.
import request from 'supertest';
import type { Express } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { controlledPostgres, type ControlledPostgres } from '../support/controlled-postgres';
import { parseConfig } from '../../src/config';
import { initAppOrm } from '../../mikro-orm.config';
import { databaseOptions } from '../../src/db/pool';
import { buildApp } from '../../src/app';
import { Role } from '../../src/modules/user/role';
import * as f from '../support/factories';
import { assertMatchesOpenApi } from '../support/openapi';
import { SchedulingSlack } from '../support/timing';

let pg: ControlledPostgres;
let orm: MikroORM;
let app: Express;
let stopApp: () => Promise<void>;
let key: string;
let productId: string;

const STATEMENT_TIMEOUT_MS = 1000;
const ACQUIRE_TIMEOUT_MS = 1000;
// The longest a request may wait on a hung database: a pool wait, then one statement and its client grace.
const BOUND_MS = ACQUIRE_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 1000 + 1500;
// The app, its pool and the client all run in this process: on a busy machine their timers fire late by
// the event loop's delay, which the bounds below allow for (src/db/readiness.ts bounds /readyz at 500 ms).
const slack = new SchedulingSlack();
const within = (bound: number) => bound + slack.ms();

beforeAll(async () => {
  slack.start();
  pg = await controlledPostgres();
  const config = parseConfig({
    DATABASE_URL: pg.url,
    LOG_LEVEL: 'silent',
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
    DB_POOL_SIZE: '4',
  });
  orm = await initAppOrm(pg.url, { ...databaseOptions(config.database), debug: false });
  ({ app, stop: stopApp } = await buildApp(config, orm));
  const em = orm.em.fork() as EntityManager;
  const company = await f.company(em, 'Outage Co');
  key = (await f.userWithKey(em, Role.CompanyAdmin, company)).key;
  productId = (await f.product(em, company, { sku: 'OUT-1', name: 'Before' })).id;
}, 180_000);

afterAll(async () => {
  slack.stop();
  await stopApp?.();
  await orm?.close(true).catch(() => undefined);
  await pg?.close();
});

const get = (path: string) => request(app).get(path).set('X-Api-Key', key);
const create = (sku: string) => request(app).post('/v1/products').set('X-Api-Key', key).send({ product: { sku, name: sku } });
const createLead = (email: string) =>
  request(app).post('/v1/leads').set('X-Api-Key', key).send({ lead: { name: 'Outage', emails: [{ email }] } });
const gql = () => request(app).post('/graphql').set('X-Api-Key', key).send({ query: `query($id: ID!) { product(id: $id) { id name } }`, variables: { id: productId } });

async function timed<T>(fn: () => PromiseLike<T>): Promise<{ res: T; ms: number }> {
  slack.reset();
  const start = Date.now();
  const res = await fn();
  return { res, ms: Date.now() - start };
}

function expectUnavailable(res: request.Response): void {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toEqual({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(/retry later/) });
}

/** Polls /readyz until it says up (bounded, generously: a busy machine); the service is never restarted. */
async function recovered(): Promise<void> {
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    if ((await request(app).get('/readyz')).status === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('/readyz did not recover within 45 s');
}

test('the GraphQL product query used below exists and answers while the database is up', async () => {
  const res = await gql();
  expect(res.status).toBe(200);
  expect(res.body.data.product).toEqual({ id: productId, name: 'Before' });
});

// Issue 40: a write whose BEGIN ran out of time on a pooled connection got a transaction the driver had
// already closed, and its first statement (`recordActor`) failed with "Transaction query already
// complete": a 500. It is a 503 like the rest of the outage.
describe('PostgreSQL hung (SIGSTOP) with connections in the pool', () => {
  beforeAll(async () => {
    // Every pooled connection open and idle (the API key is kept by the caller cache), then the freeze.
    const warm = await Promise.all([1, 2, 3, 4].map((i) => createLead(`warm${i}@example.com`)));
    expect(warm.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    pg.freeze();
  });
  afterAll(async () => {
    pg.thaw();
    await recovered();
  });

  test('lead writes give up within the configured bounds with a 503, never a 500', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((i) => timed(() => createLead(`hung${i}@example.com`))));
    for (const { res, ms } of results) {
      expectUnavailable(res);
      expect(ms).toBeLessThan(within(BOUND_MS));
    }
  });
});

describe('PostgreSQL stopped', () => {
  beforeAll(() => pg.stop());
  afterAll(async () => {
    await pg.start();
    await recovered();
  });

  test('REST reads and writes answer 503 with Retry-After in the contract error style', async () => {
    const shown = await get(`/v1/products/${productId}`);
    expectUnavailable(shown);
    assertMatchesOpenApi('get', `/v1/products/${productId}`, shown.status, shown.body);
    expectUnavailable(await get('/v1/products'));
    const created = await create('DOWN-1');
    expectUnavailable(created);
    assertMatchesOpenApi('post', '/v1/products', created.status, created.body);
  });

  test('GraphQL answers 503 with Retry-After and a SERVICE_UNAVAILABLE error', async () => {
    const res = await gql();
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
  });

  test('/readyz fails within a second', async () => {
    const { res, ms } = await timed(() => request(app).get('/readyz'));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', database: 'down' });
    expect(ms).toBeLessThan(within(1000));
  });
});

test('after PostgreSQL comes back the same app answers again, reads and writes', async () => {
  const { res, ms } = await timed(() => request(app).get('/readyz'));
  expect(res.status).toBe(200);
  expect(ms).toBeLessThan(within(1000));
  expect((await get(`/v1/products/${productId}`)).status).toBe(200);
  expect((await create('BACK-1')).status).toBe(201);
  expect((await gql()).status).toBe(200);
});

describe('PostgreSQL hung (SIGSTOP)', () => {
  beforeAll(() => pg.freeze());
  afterAll(async () => {
    pg.thaw();
    await recovered();
  });

  test('requests give up within the configured bounds with a 503', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => timed(() => (i % 2 ? get(`/v1/products/${productId}`) : create(`HUNG-${i}`)))));
    for (const { res, ms } of results) {
      expectUnavailable(res);
      expect(ms).toBeLessThan(within(BOUND_MS));
    }
  });

  test('/readyz answers 503 within a second', async () => {
    const { res, ms } = await timed(() => request(app).get('/readyz'));
    expect(res.status).toBe(503);
    expect(ms).toBeLessThan(within(1000));
  });
});

test('after the database thaws, the same app answers again', async () => {
  expect((await get(`/v1/products/${productId}`)).status).toBe(200);
  expect((await create('THAWED-1')).status).toBe(201);
});
