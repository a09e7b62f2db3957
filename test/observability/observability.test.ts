// Request ids, the access log and /metrics, through real HTTP on the whole app.
import pino from 'pino';
import request from 'supertest';
import { CACHE_SHARES } from '../../src/memory';
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { logger } from '../../src/logger';

let t: TestApp;
let key: string;
let productId: string;
const lines: Array<Record<string, any>> = [];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  const company = await f.company(em, 'Observed Co');
  key = (await f.userWithKey(em, Role.CompanyAdmin, company)).key;
  productId = (await f.product(em, company, { sku: 'OBS-1', name: 'Watched' })).id;
  // Read what the process logger writes (JSON lines) instead of stdout.
  logger.level = 'info';
  (logger as any)[pino.symbols.streamSym] = { write: (s: string) => lines.push(JSON.parse(s)) };
});
afterAll(async () => {
  logger.level = 'silent';
  await t.close();
});

const accessLines = (reqId: string) => lines.filter((l) => l.reqId === reqId && l.msg === 'request');

describe('request ids', () => {
  test('a sane X-Request-Id is kept, echoed and on the access log line', async () => {
    const res = await request(t.app).get('/healthz').set('X-Request-Id', 'edge-7f3a.2026:req/1');
    expect(res.headers['x-request-id']).toBe('edge-7f3a.2026:req/1');
    expect(accessLines('edge-7f3a.2026:req/1')).toEqual([
      expect.objectContaining({ method: 'GET', route: '/healthz', status: 200, durationMs: expect.any(Number) }),
    ]);
  });

  test.each([
    ['too long', 'x'.repeat(129)],
    ['spaces', 'a b'],
    ['quotes and braces', '"}{'],
  ])('an X-Request-Id with %s is replaced by a generated one', async (_why, sent) => {
    const res = await request(t.app).get('/healthz').set('X-Request-Id', sent);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(accessLines(res.headers['x-request-id'])).toHaveLength(1);
  });

  test('without the header each request gets its own id', async () => {
    const [a, b] = await Promise.all([request(t.app).get('/healthz'), request(t.app).get('/healthz')]);
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).toMatch(UUID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('access log', () => {
  test('names the route pattern, never the raw URL with ids', async () => {
    const res = await request(t.app).get(`/v1/products/${productId}`).set('X-Api-Key', key);
    expect(res.status).toBe(200);
    const [line] = accessLines(res.headers['x-request-id']);
    expect(line).toMatchObject({ method: 'GET', route: '/v1/products/:id', status: 200 });
    expect(JSON.stringify(line)).not.toContain(productId);
  });

  test('GraphQL, the error statuses and unmatched paths have their own lines', async () => {
    const g = await request(t.app).post('/graphql').set('X-Api-Key', key).send({ query: '{ __typename }' });
    expect(accessLines(g.headers['x-request-id'])[0]).toMatchObject({ method: 'POST', route: '/graphql', status: 200 });
    const unauthorized = await request(t.app).get(`/v1/products/${productId}`);
    expect(accessLines(unauthorized.headers['x-request-id'])[0]).toMatchObject({ route: '/v1/products/:id', status: 401 });
    const nowhere = await request(t.app).get('/v1/nothing/here/123');
    expect(accessLines(nowhere.headers['x-request-id'])[0]).toMatchObject({ route: 'unmatched', status: 404 });
  });
});

describe('/metrics', () => {
  test('exports request durations by route and status, the pool, the outbox and process metrics', async () => {
    await request(t.app).get(`/v1/products/${productId}`).set('X-Api-Key', key);
    await t.em().getConnection().execute(
      `insert into search_outbox (document, record_id, created_at) values ('products', ?, now() - interval '90 seconds'), ('products', ?, now())`,
      [productId, productId],
    );
    const res = await request(t.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v1\/products\/:id",status="200"\} \d+/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/v1\/products\/:id",status="200"\} [1-9]/);
    expect(text).not.toContain(productId);
    expect(text).toMatch(/db_pool_connections\{state="max"\} 10\b/);
    expect(text).toMatch(/db_pool_connections\{state="used"\} \d+/);
    expect(text).toMatch(/outbox_backlog_rows\{outbox="search"\} 2\b/);
    const age = Number(/outbox_oldest_age_seconds\{outbox="search"\} ([\d.]+)/.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(text).toMatch(/nodejs_eventloop_lag_p99_seconds \d/);
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
    expect(text).toMatch(/nodejs_heap_size_used_bytes \d+/);
  });

  test("exports every process-wide cache's bytes, budget, entries, hits and misses", async () => {
    const query = '{ products { meta { total } } }';
    for (let i = 0; i < 3; i++) await request(t.app).post('/graphql').set('X-Api-Key', key).send({ query });
    const text = (await request(t.app).get('/metrics')).text;
    const value = (metric: string, cache: string) => Number(new RegExp(`^${metric}\\{cache="${cache}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    // The test apps keep no API key callers (API_KEY_CACHE_TTL_MS=0): that cache is not made.
    for (const cache of Object.keys(CACHE_SHARES).filter((name) => name !== 'api_key_callers')) {
      expect(value('leadnet_cache_budget_bytes', cache)).toBeGreaterThan(0);
      expect(value('leadnet_cache_bytes', cache)).toBeLessThanOrEqual(value('leadnet_cache_budget_bytes', cache));
      expect(value('leadnet_cache_entries', cache)).toBeGreaterThanOrEqual(0);
    }
    // The document was parsed once and compiled on its second run; the next runs hit both.
    expect(value('leadnet_cache_entries', 'graphql_compiled')).toBeGreaterThan(0);
    expect(value('leadnet_cache_hits_total', 'graphql_compiled')).toBeGreaterThanOrEqual(2);
    expect(value('leadnet_cache_hits_total', 'graphql_parsed')).toBeGreaterThanOrEqual(2);
    expect(value('leadnet_cache_misses_total', 'graphql_parsed')).toBeGreaterThanOrEqual(1);
  });

  test('with METRICS_TOKEN set it needs the bearer token', async () => {
    const guarded = await createTestApp({ METRICS_TOKEN: 'scrape-token-0123456789' });
    try {
      expect((await request(guarded.app).get('/metrics')).status).toBe(401);
      expect((await request(guarded.app).get('/metrics').set('Authorization', 'Bearer wrong-token-0123456789')).status).toBe(401);
      const ok = await request(guarded.app).get('/metrics').set('Authorization', 'Bearer scrape-token-0123456789');
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('http_request_duration_seconds');
    } finally {
      await guarded.close();
    }
  });
});

describe('errors', () => {
  test('a real bug (a missing table) stays a 500, and its error log carries the request id', async () => {
    await t.em().getConnection().execute('alter table products rename to products_gone');
    try {
      const res = await request(t.app).get(`/v1/products/${productId}`).set('X-Api-Key', key).set('X-Request-Id', 'bug-500-rest');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ status: 500, error: 'Internal Server Error', message: 'Something went wrong' });
      expect(lines.filter((l) => l.reqId === 'bug-500-rest' && l.level >= 50)).not.toEqual([]);

      const g = await request(t.app)
        .post('/graphql')
        .set('X-Api-Key', key)
        .set('X-Request-Id', 'bug-500-graphql')
        .send({ query: `{ product(id: "${productId}") { id } }` });
      expect(g.body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(lines.filter((l) => l.reqId === 'bug-500-graphql' && l.level >= 50)).not.toEqual([]);
    } finally {
      await t.em().getConnection().execute('alter table products_gone rename to products');
    }
  });
});
