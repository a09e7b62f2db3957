import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import type { Company } from '../../src/modules/company/company.entity';
import type { Retailer } from '../../src/modules/retailer/retailer.entity';
import type { CompanyRetailer } from '../../src/modules/company-retailer/company-retailer.entity';

// The API key cache (src/auth/caller-cache.ts) on: a key is read once, then served from memory until a
// change to keys, users or assignments (here or in another process) or its time-to-live says otherwise.
let t: TestApp;
let acme: Company;
let other: Company;
let seller: Retailer;
let crs: CompanyRetailer[];

const KEY_READ = 'from api_keys where key_hash';
const keyReads = () => t.statements.filter((s) => s.includes(KEY_READ)).length;

async function until(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  t = await createTestApp({ API_KEY_CACHE_TTL_MS: '60000' });
  const em = t.em();
  acme = await f.company(em, 'Acme');
  other = await f.company(em, 'Other');
  seller = await f.retailer(em);
  crs = [await f.companyRetailer(em, acme, seller), await f.companyRetailer(em, acme, await f.retailer(em))];
  await f.product(em, acme, { sku: 'A-1', name: 'Acme anvil' });
  await f.product(em, other, { sku: 'O-1', name: 'Other anvil' });
});
afterAll(() => t.close());

/** Waits until the cache listens (it starts with the app, on a connection of its own). */
async function cached(key: string): Promise<void> {
  await until(async () => {
    await api(t, 'get', '/v1/products', { key });
    t.resetStatements();
    await api(t, 'get', '/v1/products', { key });
    return keyReads() === 0;
  }, 'the key is served from the cache');
}

test('a key is read once, then served from memory: its next requests read no key', async () => {
  const { key } = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  await cached(key);
  t.resetStatements();
  for (let i = 0; i < 3; i++) expect((await api(t, 'get', '/v1/products', { key })).status).toBe(200);
  expect(keyReads()).toBe(0);
});

test('a key revoked through the API is 401 on its very next request', async () => {
  const operator = await f.userWithKey(t.em(), Role.PlatformOperator, null);
  const { user, key } = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  await cached(key);
  const keys = await gql(t, operator.key, `query($u: ID!) { apiKeys(userId: $u) { id } }`, { u: user.id });
  const revoked = await gql(t, operator.key, `mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`, { id: keys.body.data.apiKeys[0].id });
  expect(revoked.body.errors).toBeUndefined();
  expect((await api(t, 'get', '/v1/products', { key })).status).toBe(401);
  expect((await gql(t, key, '{ products { meta { total } } }')).status).toBe(401);
});

test('a key revoked by another process (plain SQL on its own connection) is 401 once the notification arrives, and stays so', async () => {
  const { user, key } = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  await cached(key);
  await t.em().getConnection().execute('update api_keys set revoked_at = now() where user_id = ?', [user.id]);
  await until(async () => (await api(t, 'get', '/v1/products', { key })).status === 401, 'the revoked key is refused', 2000);
  for (let i = 0; i < 3; i++) expect((await api(t, 'get', '/v1/products', { key })).status).toBe(401);
});

test("a change of a user's organisation or assignments takes effect without waiting for the time-to-live", async () => {
  const { user, key } = await f.userWithKey(t.em(), Role.CompanyRetailerManager, acme, { companyRetailers: [crs[0]] });
  await cached(key);
  const total = async () => (await api(t, 'get', '/v1/company_retailers', { key })).body.meta.total;
  expect(await total()).toBe(1);
  await t.em().getConnection().execute('insert into user_company_retailers (user_id, company_retailer_id) values (?, ?)', [user.id, crs[1].id]);
  await until(async () => (await total()) === 2, 'the new assignment is seen', 2000);
  // Moved to another company: its products are the other company's.
  await t.em().getConnection().execute("update users set role = 'company_admin', company_id = ? where id = ?", [other.id, user.id]);
  await until(async () => (await api(t, 'get', '/v1/products', { key })).body.products?.[0]?.sku === 'O-1', 'the new company is seen', 2000);
});

test('unknown and malformed keys are never kept: each is read again, and none fills the cache', async () => {
  const unknown = 'lnk_' + 'B'.repeat(43);
  t.resetStatements();
  for (let i = 0; i < 3; i++) expect((await api(t, 'get', '/v1/products', { key: unknown })).status).toBe(401);
  expect(keyReads()).toBe(3);
  for (const key of ['', 'x', 'lnk_short', 'a'.repeat(5000), "lnk_' or 1=1 --xxxxxxxxxxxxxxx"]) {
    expect((await api(t, 'get', '/v1/products', { key })).status).toBe(401);
  }
});

test("keys of two organisations served from the cache keep each its own caller (no tenant sees the other's)", async () => {
  const a = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  const b = await f.userWithKey(t.em(), Role.CompanyAdmin, other);
  await cached(a.key);
  await cached(b.key);
  for (let i = 0; i < 4; i++) {
    const [ra, rb] = await Promise.all([api(t, 'get', '/v1/products', { key: a.key }), api(t, 'get', '/v1/products', { key: b.key })]);
    expect(ra.body.products.map((p: any) => p.company_id)).toEqual([acme.id]);
    expect(rb.body.products.map((p: any) => p.company_id)).toEqual([other.id]);
  }
});

describe('without notifications', () => {
  let short: TestApp;
  beforeAll(async () => {
    short = await createTestApp({ API_KEY_CACHE_TTL_MS: '300' });
  });
  afterAll(() => short.close());

  test('a kept caller lives at most the time-to-live: a revocation no notification announced is 401 after it', async () => {
    const acmeHere = await f.company(short.em(), 'Acme');
    const { user, key } = await f.userWithKey(short.em(), Role.CompanyAdmin, acmeHere);
    const conn = short.em().getConnection();
    await until(async () => {
      await api(short, 'get', '/v1/products', { key });
      short.resetStatements();
      await api(short, 'get', '/v1/products', { key });
      return !short.statements.some((s) => s.includes(KEY_READ));
    }, 'the key is served from the cache');
    // A revocation whose notification is lost (the trigger off for it).
    await conn.execute('begin; alter table api_keys disable trigger api_keys_auth_changed; update api_keys set revoked_at = now() where user_id = ?; alter table api_keys enable trigger api_keys_auth_changed; commit;', [user.id]);
    const revokedAt = Date.now();
    await until(async () => (await api(short, 'get', '/v1/products', { key })).status === 401, 'the key expires from the cache', 3000);
    expect(Date.now() - revokedAt).toBeLessThan(1500);
  });
});

test('while the change listener is down nothing is served from the cache, and what changed meanwhile is not missed', async () => {
  const { user, key } = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  await cached(key);
  const conn = t.em().getConnection();
  await conn.execute(`select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen leadnet_auth_changes' and datname = current_database()`);
  await until(async () => {
    t.resetStatements();
    await api(t, 'get', '/v1/products', { key });
    return keyReads() === 1;
  }, 'the key is read again while nobody listens', 2000);
  // A revocation no notification announces (it would have been lost anyway): seen at once.
  await conn.execute('begin; alter table api_keys disable trigger api_keys_auth_changed; update api_keys set revoked_at = now() where user_id = ?; alter table api_keys enable trigger api_keys_auth_changed; commit;', [user.id]);
  expect((await api(t, 'get', '/v1/products', { key })).status).toBe(401);
  // Listening again, the cache serves other keys.
  const next = await f.userWithKey(t.em(), Role.CompanyAdmin, acme);
  await cached(next.key);
});
