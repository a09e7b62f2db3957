import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createClient } from 'redis';
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { parseConfig } from '../../src/config';
import { buildApp, type App } from '../../src/app';
import { hashKey } from '../../src/auth/api-keys';
import { REDIS_COMMAND_TIMEOUT_MS, ReloadingRedisStore } from '../../src/http/rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { assertMatchesOpenApi } from '../support/openapi';

const REDIS_URL = 'redis://127.0.0.1:6379';

let t: TestApp;
let keys: string[];
const started: App[] = [];

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  const acme = await f.company(em);
  keys = [];
  for (let i = 0; i < 7; i++) keys.push((await f.userWithKey(em, Role.CompanyAdmin, acme)).key);
});
afterAll(async () => {
  for (const a of started) await a.stop();
  await t.close();
});

/** Another instance of the app on the suite's database, with its own limits. */
async function instance(env: Record<string, string>): Promise<Express> {
  const config = parseConfig({ DATABASE_URL: 'postgres://unused/x', LOG_LEVEL: 'silent', ...env });
  const app = await buildApp(config, t.orm);
  started.push(app);
  return app.app;
}

/** A client address of its own (documentation range), so runs never share a bucket. */
const someIp = () => `198.51.100.${1 + (randomBytes(1)[0] % 250)}`;
const products = (app: Express, key?: string, headers: Record<string, string> = {}) => {
  let r = request(app).get('/v1/products');
  if (key) r = r.set('X-Api-Key', key);
  for (const [k, v] of Object.entries(headers)) r = r.set(k, v);
  return r;
};
const typename = (app: Express, key: string) =>
  request(app).post('/graphql').set('Content-Type', 'application/json').set('X-Api-Key', key).send({ query: '{ __typename }' });

describe('per API key on /v1 and /graphql (memory)', () => {
  let app: Express;
  beforeAll(async () => {
    app = await instance({ RATE_LIMIT_API: '3', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0' });
  });

  test('the request after the limit is a 429 with RateLimit headers, Retry-After and a SPEC 7 body', async () => {
    const first = await products(app, keys[0]);
    expect(first.status).toBe(200);
    // IETF draft 8; `pk` is a partition key the library derives by hashing the bucket.
    expect(first.headers['ratelimit-policy']).toMatch(/^"api"; q=3; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    expect(first.headers.ratelimit).toMatch(/^"api"; r=2; t=\d+$/);
    expect((await products(app, keys[0])).status).toBe(200);
    expect((await products(app, keys[0])).status).toBe(200);
    const refused = await products(app, keys[0]);
    expect(refused.status).toBe(429);
    assertMatchesOpenApi('get', '/v1/products', refused.status, refused.body);
    expect(refused.headers.ratelimit).toMatch(/^"api"; r=0; t=\d+$/);
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({
      status: 429,
      error: 'Too Many Requests',
      message: `Too many requests: the limit is 3 per 60 seconds; retry after ${retry} seconds`,
    });
  });

  test('the key is one bucket across /v1 and /graphql, whatever identifier prefixes it; /graphql answers a GraphQL error', async () => {
    expect((await products(app, keys[1])).status).toBe(200);
    expect((await products(app, `partner-42:${keys[1]}`)).status).toBe(200);
    expect((await typename(app, keys[1])).status).toBe(200);
    const refused = await typename(app, keys[1]);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body).toEqual({
      errors: [{ message: expect.stringMatching(/^Too many requests: the limit is 3 per 60 seconds/), extensions: { code: 'RATE_LIMITED' } }],
    });
  });

  test('another key has its own bucket', async () => {
    for (let i = 0; i < 4; i++) await products(app, keys[2]);
    expect((await products(app, keys[2])).status).toBe(429);
    expect((await products(app, keys[3])).status).toBe(200);
  });

  test('requests without a key count against their IP', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await products(app)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await products(app, keys[4])).status).toBe(200);
  });
});

describe('per IP on /v1 and /graphql, whatever the key', () => {
  test('rotating keys from one address meets the per-IP limit', async () => {
    const app = await instance({ RATE_LIMIT_API: '100', RATE_LIMIT_API_PER_IP: '3', RATE_LIMIT_STORE_LOCATOR: '0' });
    const fake = () => `lnk_${randomBytes(32).toString('base64url')}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await products(app, fake())).status);
    const refused = await products(app, fake());
    expect([...statuses, refused.status]).toEqual([401, 401, 401, 429]);
    expect(refused.headers['ratelimit-policy']).toMatch(/"api-ip"; q=3; w=60/);
  });
});

describe('the public store locator, per client IP', () => {
  test('with the defaults, 300 rapid requests from one address meet 429s (the 121st)', async () => {
    const app = await instance({});
    let firstRefused = 0;
    for (let i = 1; i <= 300 && !firstRefused; i++) {
      const res = await request(app).get(`/v1/store_locator/${randomUUID()}`);
      if (res.status === 429) firstRefused = i;
      else expect(res.status).toBe(404);
    }
    expect(firstRefused).toBe(121);
  });

  test('a 429 in the SPEC 7 style that browsers on any origin can read; buckets per IP behind a trusted proxy', async () => {
    const app = await instance({ RATE_LIMIT_STORE_LOCATOR: '2', TRUST_PROXY: '1' });
    const shopper = someIp();
    const other = `203.0.113.${1 + (randomBytes(1)[0] % 250)}`;
    const show = (ip: string) => request(app).get(`/v1/store_locator/${randomUUID()}`).set('X-Forwarded-For', ip).set('Origin', 'https://shop.example.test');
    expect((await show(shopper)).status).toBe(404);
    expect((await show(shopper)).status).toBe(404);
    const refused = await show(shopper);
    expect(refused.status).toBe(429);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['ratelimit-policy']).toMatch(/^"store-locator"; q=2; w=60;/);
    expect(refused.body).toMatchObject({ status: 429, error: 'Too Many Requests' });
    assertMatchesOpenApi('get', '/v1/store_locator/x', refused.status, refused.body);
    expect((await show(other)).status).toBe(404);
    // The locator's bucket is its own: the API limits do not count it.
    expect((await products(app, keys[5], { 'X-Forwarded-For': shopper })).status).toBe(200);
  });

  test('without TRUST_PROXY, X-Forwarded-For is ignored: a client cannot pick a fresh bucket', async () => {
    const app = await instance({ RATE_LIMIT_STORE_LOCATOR: '2' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await request(app).get(`/v1/store_locator/${randomUUID()}`).set('X-Forwarded-For', someIp())).status);
    expect(statuses).toEqual([404, 404, 429]);
  });
});

// The tests of two instances count once on each, in a bucket of its own, before the counts they read: a
// counting script whose load timed out while an instance started (a busy machine) is loaded again by then.
describe('shared through Redis when REDIS_URL is set', () => {
  const redis = createClient({ url: REDIS_URL });
  beforeAll(() => redis.connect());
  afterAll(() => redis.close());

  test('scripts whose load failed at start (Redis slow, the process busy) are loaded again: the limits come back', async () => {
    const storeFailingItsFirstLoads = (Store: typeof RedisStore) => {
      let failing = 2; // the increment and get scripts' loads at start time out
      const store = new Store({
        prefix: `leadnet:rl:test:${randomUUID()}:`,
        sendCommand: async (...args: string[]) => {
          if (args[0] === 'SCRIPT' && failing > 0) {
            failing--;
            throw new Error('timed out');
          }
          return redis.sendCommand(args);
        },
      });
      return store;
    };
    const options = { windowMs: 60_000 } as Parameters<RedisStore['init']>[0];
    // rate-limit-redis alone keeps the failed load: every count fails, and the limits pass everything.
    const plain = storeFailingItsFirstLoads(RedisStore);
    await plain.init(options).catch(() => undefined);
    await expect(plain.increment('k')).rejects.toThrow('timed out');
    await expect(plain.increment('k')).rejects.toThrow('timed out');
    // Ours fails the count that found it so, and counts from the next one on.
    const store = storeFailingItsFirstLoads(ReloadingRedisStore);
    await store.init(options).catch(() => undefined);
    await expect(store.increment('k')).rejects.toThrow('timed out');
    expect(await store.increment('k')).toMatchObject({ totalHits: 1 });
    expect(await store.increment('k')).toMatchObject({ totalHits: 2 });
  });

  test('two instances share one limit per key; Redis holds a hash of the key, never the key', async () => {
    const env = { REDIS_URL, RATE_LIMIT_API: '4', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0' };
    const [a, b] = [await instance(env), await instance(env)];
    const [key, warmUp] = await Promise.all([0, 1].map(async () => (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key));
    for (const app of [a, b]) await products(app, warmUp);
    expect((await products(a, key)).status).toBe(200);
    expect((await products(b, key)).headers.ratelimit).toMatch(/^"api"; r=2;/);
    expect((await typename(a, key)).status).toBe(200);
    expect((await products(b, key)).status).toBe(200);
    expect((await products(a, key)).status).toBe(429);
    expect((await typename(b, key)).status).toBe(429);

    const stored = await redis.keys('leadnet:rl:api:*');
    expect(stored).toContain(`leadnet:rl:api:key:${hashKey(key)}`);
    expect(stored.some((k) => k.includes(key))).toBe(false);
  });

  test('the locator limit per IP is shared too', async () => {
    const env = { REDIS_URL, RATE_LIMIT_STORE_LOCATOR: '3', TRUST_PROXY: '1' };
    const [a, b] = [await instance(env), await instance(env)];
    const ip = `192.0.2.${1 + (randomBytes(1)[0] % 250)}`;
    await redis.del(`leadnet:rl:store-locator:${ip}`);
    const show = (app: Express, from = ip) => request(app).get(`/v1/store_locator/${randomUUID()}`).set('X-Forwarded-For', from);
    for (const app of [a, b]) await show(app, someIp());
    const statuses = [(await show(a)).status, (await show(b)).status, (await show(a)).status, (await show(b)).status];
    expect(statuses).toEqual([404, 404, 404, 429]);
  });

  /** A redis-server of the test's own on a random port, accepting connections; the caller stops it. */
  async function ownRedis(): Promise<{ server: ChildProcess; url: string }> {
    const port = 20000 + (randomBytes(2).readUInt16BE() % 20000);
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const url = `redis://127.0.0.1:${port}`;
    const probe = createClient({ url, socket: { reconnectStrategy: 50 } });
    probe.on('error', () => undefined);
    try {
      await probe.connect(); // waits until the server accepts connections
      await probe.close();
    } catch (e) {
      server.kill();
      throw e;
    }
    return { server, url };
  }

  test('when Redis goes away mid-flight, requests pass unlimited: never a 5xx', async () => {
    const { server, url } = await ownRedis();
    try {
      const app = await instance({ REDIS_URL: url, RATE_LIMIT_API: '2', RATE_LIMIT_API_PER_IP: '0' });
      expect((await products(app, keys[5])).status).toBe(200);
      server.kill();
      await once(server, 'exit');
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await products(app, keys[5])).status);
      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      if (server.exitCode === null) server.kill();
    }
  });

  test('when Redis stops answering (frozen, the connection open), each request passes unlimited within the command timeout', async () => {
    const { server, url } = await ownRedis();
    try {
      const app = await instance({ REDIS_URL: url, RATE_LIMIT_API: '2', RATE_LIMIT_API_PER_IP: '0' });
      expect((await products(app, keys[6])).status).toBe(200);
      server.kill('SIGSTOP');
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        expect((await products(app, keys[6])).status).toBe(200);
        expect(Date.now() - started).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 2000);
      }
    } finally {
      server.kill('SIGCONT');
      server.kill();
    }
  });

  test('an unreachable Redis stops the start with a message naming it', async () => {
    const config = parseConfig({ DATABASE_URL: 'postgres://unused/x', LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:1' });
    await expect(buildApp(config, t.orm)).rejects.toThrow(/Redis at redis:\/\/127\.0\.0\.1:1 is unreachable/);
  });
});
