import { Client } from 'pg';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

// A statement PostgreSQL cancels at DB_STATEMENT_TIMEOUT_MS (a costly filter, or a table a migration holds
// locked) answers 503 with Retry-After, REST and GraphQL alike, saying the request ran out of time rather
// than that the database is unreachable. A write cancelled half-way leaves nothing behind, and the pool's
// connections keep answering once the table is free.
const BOUND_MS = 1500;
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ DB_STATEMENT_TIMEOUT_MS: String(BOUND_MS) });
  const em = t.em();
  const acme = await f.company(em, 'Acme');
  await f.product(em, acme, { sku: 'ANV-1', name: 'Anvil' });
  key = (await f.userWithKey(em, Role.CompanyAdmin, acme)).key;
});
afterAll(() => t.close());

/** Runs `fn` while another session holds `table` in ACCESS EXCLUSIVE mode, as a long migration would. */
async function whileLocked<T>(table: string, fn: () => Promise<T>): Promise<T> {
  const other = new Client({ connectionString: t.config.databaseUrl });
  await other.connect();
  try {
    await other.query('begin');
    await other.query(`lock table ${table} in access exclusive mode`);
    return await fn();
  } finally {
    await other.query('rollback');
    await other.end();
  }
}

const TIMED_OUT = /did not finish within its time bound.*narrow its filters or retry later/;

test('a list whose statement runs past the bound: 503, Retry-After, and a message that says so', async () => {
  const res = await whileLocked('products', () => api(t, 'get', '/v1/products', { key }));
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toEqual({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(TIMED_OUT) });
  expect(res.body.message).not.toMatch(/unreachable/);

  const again = await api(t, 'get', '/v1/products', { key });
  expect(again.status).toBe(200);
  expect(again.body.products.map((p: { sku: string }) => p.sku)).toEqual(['ANV-1']);
});

test('the same over GraphQL: HTTP 503, code SERVICE_UNAVAILABLE, the same message', async () => {
  const res = await whileLocked('products', () => gql(t, key, '{ products(perPage: 5) { meta { total } nodes { sku } } }'));
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(TIMED_OUT), extensions: { code: 'SERVICE_UNAVAILABLE' } })]);
});

test('a create cancelled half-way writes nothing; the same create succeeds once the table is free', async () => {
  const body = { product: { sku: 'NEW-1', name: 'New' } };
  const res = await whileLocked('products', () => api(t, 'post', '/v1/products', { key, body }));
  expect(res.status).toBe(503);
  expect(res.body.message).toMatch(TIMED_OUT);

  const listed = await api(t, 'get', '/v1/products', { key });
  expect(listed.body.products.map((p: { sku: string }) => p.sku)).toEqual(['ANV-1']);
  const created = await api(t, 'post', '/v1/products', { key, body });
  expect(created.status).toBe(201);
  expect(created.body.sku).toBe('NEW-1');
});
