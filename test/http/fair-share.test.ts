// Each organisation's share of the process (docs/hardening.md, "One organisation's burst"): a brand whose
// requests are all stuck (here: lists waiting on a search engine that never answers) holds at most
// ORGANISATION_CONCURRENCY of them; its next ones wait in a bounded queue, then get 429 with
// Retry-After; another brand's requests, REST and GraphQL, answer as if nothing happened.
import { createTestApp, api, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { serveFakeElasticsearch } from '../support/fake-elasticsearch-server';
import { FairShare } from '../../src/http/fair-share';
import type request from 'supertest';
import { Client } from 'pg';

describe('FairShare', () => {
  const share = () => new FairShare({ inFlight: 2, queue: 2, waitMs: 200 });

  test('runs up to inFlight at once per key; the next wait their turn in order; others are not held', async () => {
    const s = share();
    const a1 = await s.enter('a');
    await s.enter('a');
    const order: string[] = [];
    const third = s.enter('a').then((release) => (order.push('third'), release));
    const fourth = s.enter('a').then((release) => (order.push('fourth'), release));
    expect(s.usage('a')).toEqual({ running: 2, waiting: 2 });
    await expect(s.enter('a')).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
    (await s.enter('b'))();
    a1();
    a1(); // a second release of the same turn hands nothing back
    (await third)();
    (await fourth)();
    expect(order).toEqual(['third', 'fourth']);
    expect(s.usage('a')).toEqual({ running: 1, waiting: 0 });
  });

  test('a turn not given within waitMs is refused, and leaves the queue', async () => {
    const s = share();
    await s.enter('a');
    await s.enter('a');
    await expect(s.enter('a')).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED', http: { status: 429 } } });
    expect(s.usage('a')).toEqual({ running: 2, waiting: 0 });
  });

  test('inFlight 0 turns it off', async () => {
    const s = new FairShare({ inFlight: 0, queue: 0, waitMs: 0 });
    for (let i = 0; i < 50; i++) await s.enter('a');
    expect(s.usage('a')).toEqual({ running: 0, waiting: 0 });
  });
});

describe('one brand stuck, another served', () => {
  let hang = false;
  let es: Awaited<ReturnType<typeof serveFakeElasticsearch>>;
  let t: TestApp;
  let r: Awaited<ReturnType<typeof roles>>;
  let leadA: string;
  let leadB: string;

  beforeAll(async () => {
    es = await serveFakeElasticsearch(undefined, (req) => (hang && req.path.endsWith('/_search') ? 'hang' : undefined));
    t = await createTestApp({
      SEARCH_BACKEND: 'elasticsearch',
      SEARCH_URL: es.url,
      SEARCH_INDEXER: 'false',
      SEARCH_TIMEOUT_MS: '4000',
      SEARCH_MAX_RETRIES: '0',
      ORGANISATION_CONCURRENCY: '2',
      ORGANISATION_QUEUE: '1',
      ORGANISATION_QUEUE_WAIT_MS: '300',
    });
    r = await roles(t.em());
    leadA = (await createLead(t, r.users.companyAdmin.key, quoteRequest())).id;
    leadB = (await createLead(t, r.users.otherAdmin.key, quoteRequest())).id;
  });
  afterAll(async () => {
    await t?.close();
    await es?.close();
  });

  test('REST and GraphQL: the stuck brand gets 429 with Retry-After past its share; the other brand is answered', async () => {
    hang = true;
    // Brand A: two lists stuck on the engine, from two of its users (keys do not matter: the share is the brand's).
    const stuck = [api(t, 'get', '/v1/leads', { key: r.users.companyAdmin.key }), api(t, 'get', '/v1/leads', { key: r.users.territoryManager.key })];
    await new Promise((resolve) => setTimeout(resolve, 500));

    const queued = api(t, 'get', `/v1/leads/${leadA}`, { key: r.users.companyAdmin.key });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await api(t, 'get', `/v1/leads/${leadA}`, { key: r.users.companyAdmin.key });
    expect429(refused);
    const viaGraphql = await gql(t, r.users.companyAdmin.key, `query ($id: ID!) { lead(id: $id) { id } }`, { id: leadA });
    expect(viaGraphql.status).toBe(429);
    expect(viaGraphql.headers['retry-after']).toBe('1');
    expect(viaGraphql.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect429(await queued); // waited 300 ms for a turn that did not come

    // Brand B, meanwhile: a show, a write and a GraphQL read, at once.
    const [show, created, read] = await Promise.all([
      api(t, 'get', `/v1/leads/${leadB}`, { key: r.users.otherAdmin.key }),
      api(t, 'post', '/v1/leads', { key: r.users.otherAdmin.key, body: quoteRequest() }),
      gql(t, r.users.otherAdmin.key, `query ($id: ID!) { lead(id: $id) { id } }`, { id: leadB }),
    ]);
    expect(show.status).toBe(200);
    expect(created.status).toBe(201);
    expect(read.body).toEqual({ data: { lead: { id: leadB } } });

    hang = false;
    for (const res of await Promise.all(stuck)) expect(res.status).toBe(503);
    // Its turns handed back, brand A is served again.
    expect((await api(t, 'get', `/v1/leads/${leadA}`, { key: r.users.companyAdmin.key })).status).toBe(200);
  }, 60_000);
});

describe('one brand holding database connections, another served', () => {
  // The pool has 3 connections. Brand A's updates of one lead wait on a row lock another session holds,
  // each holding a pooled connection: without the share, five of them would take all three and brand B's
  // requests would wait for a connection until DB_ACQUIRE_TIMEOUT_MS and get 503.
  let t: TestApp;
  let r: Awaited<ReturnType<typeof roles>>;
  let leadA: string;
  let leadB: string;
  beforeAll(async () => {
    t = await createTestApp({ DB_POOL_SIZE: '3', DB_ACQUIRE_TIMEOUT_MS: '1500', ORGANISATION_CONCURRENCY: '2', ORGANISATION_QUEUE: '10', ORGANISATION_QUEUE_WAIT_MS: '20000' });
    r = await roles(t.em());
    leadA = (await createLead(t, r.users.companyAdmin.key, quoteRequest())).id;
    leadB = (await createLead(t, r.users.otherAdmin.key, quoteRequest())).id;
  });
  afterAll(() => t?.close());

  test('brand A waits its turn for its own locked row; brand B reads and writes meanwhile', async () => {
    const locker = new Client({ connectionString: t.config.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from leads where id = $1 for update', [leadA]);
      const blocked = Array.from({ length: 5 }, (_, i) =>
        api(t, 'patch', `/v1/leads/${leadA}`, { key: r.users.companyAdmin.key, body: { lead: { name: `Locked ${i}` } } }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const [show, created, read] = await Promise.all([
        api(t, 'get', `/v1/leads/${leadB}`, { key: r.users.otherAdmin.key }),
        api(t, 'post', '/v1/leads', { key: r.users.otherAdmin.key, body: quoteRequest() }),
        gql(t, r.users.otherAdmin.key, `query ($id: ID!) { lead(id: $id) { id } }`, { id: leadB }),
      ]);
      expect(show.status).toBe(200);
      expect(created.status).toBe(201);
      expect(read.body).toEqual({ data: { lead: { id: leadB } } });
      await locker.query('commit');
      // Brand A's five updates then run, two at a time: none lost, none refused.
      for (const res of await Promise.all(blocked)) expect(res.status).toBe(200);
    } finally {
      await locker.end();
    }
  }, 60_000);
});

function expect429(res: request.Response): void {
  expect(res.status).toBe(429);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.body).toEqual({ status: 429, error: 'Too Many Requests', message: 'Too many requests of your organisation are running at once; retry shortly' });
}
