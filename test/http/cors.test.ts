import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { parseConfig, ConfigError } from '../../src/config';
import { buildApp, type App } from '../../src/app';

const ALLOWED = 'https://app.example.test';
let t: TestApp;
let open: App;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  key = (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key;
  open = await buildApp(parseConfig({ GRAPHQL_CORS_ORIGINS: `${ALLOWED}, https://admin.example.test`, RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0' }), t.orm);
});
afterAll(async () => {
  await open.stop();
  await t.close();
});

const preflight = (app: App['app'], origin: string) =>
  request(app)
    .options('/graphql')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'content-type, x-api-key');

test('by default /graphql sends no CORS headers: browsers stay same-origin', async () => {
  const res = await request(t.app).post('/graphql').set('Origin', ALLOWED).set('Content-Type', 'application/json').set('X-Api-Key', key).send({ query: '{ __typename }' });
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
  expect((await preflight(t.app, ALLOWED)).headers['access-control-allow-origin']).toBeUndefined();
});

test('a configured origin passes the preflight with X-Api-Key and Content-Type, then reads the answer', async () => {
  const pre = await preflight(open.app, ALLOWED);
  expect(pre.status).toBe(204);
  expect(pre.headers['access-control-allow-origin']).toBe(ALLOWED);
  expect(pre.headers['access-control-allow-methods']).toMatch(/POST/);
  expect(pre.headers['access-control-allow-headers']).toMatch(/content-type/i);
  expect(pre.headers['access-control-allow-headers']).toMatch(/x-api-key/i);
  expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
  expect(pre.headers.vary).toMatch(/origin/i);

  const res = await request(open.app).post('/graphql').set('Origin', ALLOWED).set('Content-Type', 'application/json').set('X-Api-Key', key).send({ query: '{ __typename }' });
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  expect(res.headers['access-control-expose-headers']).toMatch(/Retry-After/);
});

test('any other origin gets no CORS headers, on the preflight or the call', async () => {
  for (const origin of ['https://evil.example.test', 'https://app.example.test.evil.test', 'http://app.example.test']) {
    const pre = await preflight(open.app, origin);
    expect({ origin, allow: pre.headers['access-control-allow-origin'] }).toEqual({ origin, allow: undefined });
    const res = await request(open.app).post('/graphql').set('Origin', origin).set('Content-Type', 'application/json').send({ query: '{ __typename }' });
    expect({ origin, allow: res.headers['access-control-allow-origin'] }).toEqual({ origin, allow: undefined });
  }
});

test('/v1 stays closed to browsers; the store locator stays open to any origin', async () => {
  expect((await request(open.app).get('/v1/products').set('Origin', ALLOWED).set('X-Api-Key', key)).headers['access-control-allow-origin']).toBeUndefined();
  const locator = await request(open.app).get('/v1/store_locator/00000000-0000-4000-8000-000000000000').set('Origin', 'https://shop.example.test');
  expect(locator.headers['access-control-allow-origin']).toBe('*');
});

test('an origin list with something that is not an origin stops the start', () => {
  expect(() => parseConfig({ GRAPHQL_CORS_ORIGINS: 'https://ok.example.test, *' })).toThrow(ConfigError);
  expect(() => parseConfig({ GRAPHQL_CORS_ORIGINS: 'https://ok.example.test/path' })).toThrow(/GRAPHQL_CORS_ORIGINS/);
});
