import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { User } from '../../src/modules/user/user.entity';
import { ApiKey } from '../../src/modules/user/api-key.entity';
import { CLI_OPERATOR, UserService } from '../../src/modules/user/user.service';
import type { Context } from '../../src/context';
import { Loaders } from '../../src/db/loaders';
import { createSearchBackend } from '../../src/search/factory';
import { NullGeocoder } from '../../src/geo/geocoder';

const USER_FIELDS = `id email name role companyId retailerId territoryId companyRetailerIds companyRetailerLocationIds retailerLocationIds createdAt updatedAt`;
const CREATE = `mutation($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`;
const GET = `query($id: ID!) { user(id: $id) { ${USER_FIELDS} } }`;
const LIST = `query($where: UserWhere, $perPage: Int) { users(where: $where, perPage: $perPage) { nodes { ${USER_FIELDS} } meta { total page perPage totalPages } } }`;
const GENERATE = `mutation($userId: ID!, $label: String) { generateApiKey(userId: $userId, label: $label) { plainKey apiKey { id userId prefix label createdAt lastUsedAt revokedAt } } }`;
const KEYS = `query($userId: ID!) { apiKeys(userId: $userId) { id userId prefix label createdAt lastUsedAt revokedAt } }`;
const REVOKE = `mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`;

let t: TestApp;
let net: Awaited<ReturnType<typeof f.network>>;
let other: Awaited<ReturnType<typeof f.network>>;
let operator: f.UserWithKey;
let companyAdmin: f.UserWithKey;
let otherCompanyAdmin: f.UserWithKey;
let retailerAdmin: f.UserWithKey;

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  net = await f.network(em);
  other = await f.network(em);
  operator = await f.userWithKey(em, Role.PlatformOperator, null);
  companyAdmin = await f.userWithKey(em, Role.CompanyAdmin, net.company);
  otherCompanyAdmin = await f.userWithKey(em, Role.CompanyAdmin, other.company);
  retailerAdmin = await f.userWithKey(em, Role.RetailerAdmin, net.retailer);
});
afterAll(() => t.close());

const code = (res: any) => res.body.errors?.[0]?.extensions?.code;
const details = (res: any) => res.body.errors?.[0]?.extensions?.details?.map((d: any) => [d.field, d.code]);
let n = 0;
const email = (tag: string) => `${tag}.${++n}@Example.TEST`;

describe('platform operator', () => {
  test('creates a user of any organisation with its assignments, lower-casing the email', async () => {
    const res = await gql(t, operator.key, CREATE, {
      input: { email: email('Tm'), name: ' Terry ', role: 'company_territory_manager', companyId: net.company.id, territoryId: net.north.id },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createUser).toMatchObject({
      email: `tm.${n}@example.test`,
      name: 'Terry',
      role: 'company_territory_manager',
      companyId: net.company.id,
      retailerId: null,
      territoryId: net.north.id,
      companyRetailerIds: [],
    });

    const manager = await gql(t, operator.key, CREATE, {
      input: { email: email('sm'), role: 'retailer_store_manager', retailerId: net.retailer.id, retailerLocationIds: [net.storeNorth.retailerLocation!.id] },
    });
    expect(manager.body.data.createUser).toMatchObject({ retailerId: net.retailer.id, companyId: null, retailerLocationIds: [net.storeNorth.retailerLocation!.id] });

    const op = await gql(t, operator.key, CREATE, { input: { email: email('op'), role: 'platform_operator' } });
    expect(op.body.data.createUser).toMatchObject({ role: 'platform_operator', companyId: null, retailerId: null });
  });

  test('generates a key that works at once, lists keys without their hash, and a revoked key is 401 at once', async () => {
    const created = await gql(t, operator.key, CREATE, {
      input: { email: email('loc'), role: 'company_location_user', companyId: net.company.id, companyRetailerLocationIds: [net.storeNorth.id, net.storeNorth.id] },
    });
    const user = created.body.data.createUser;
    expect(user.companyRetailerLocationIds).toEqual([net.storeNorth.id]);

    const gen = await gql(t, operator.key, GENERATE, { userId: user.id, label: ' CRM sync ' });
    expect(gen.body.errors).toBeUndefined();
    const { plainKey, apiKey } = gen.body.data.generateApiKey;
    expect(plainKey).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(apiKey).toMatchObject({ userId: user.id, label: 'CRM sync', prefix: plainKey.slice(0, apiKey.prefix.length), lastUsedAt: null, revokedAt: null });

    const stored = await t.em().findOneOrFail(ApiKey, apiKey.id);
    expect(stored.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.keyHash).not.toContain(plainKey);

    expect((await api(t, 'get', '/v1/products', { key: plainKey })).status).toBe(200);
    expect((await api(t, 'get', '/v1/products', { key: `partner-x:${plainKey}` })).status).toBe(200);

    const keys = await gql(t, operator.key, KEYS, { userId: user.id });
    expect(keys.body.data.apiKeys).toHaveLength(1);
    expect(keys.body.data.apiKeys[0].lastUsedAt).not.toBeNull();
    const hashQuery = await gql(t, operator.key, `query($userId: ID!) { apiKeys(userId: $userId) { keyHash } }`, { userId: user.id });
    expect(hashQuery.body.errors[0].message).toMatch(/Cannot query field "keyHash"/);

    const revoked = await gql(t, operator.key, REVOKE, { id: apiKey.id });
    expect(revoked.body.data.revokeApiKey.revokedAt).not.toBeNull();
    expect((await api(t, 'get', '/v1/products', { key: plainKey })).status).toBe(401);
    const again = await gql(t, operator.key, REVOKE, { id: apiKey.id });
    expect(again.body.data.revokeApiKey.revokedAt).toBe(revoked.body.data.revokeApiKey.revokedAt);
  });

  test('updates name, role and assignments; assignments the new role does not use are cleared', async () => {
    const created = await gql(t, operator.key, CREATE, {
      input: { email: email('rm'), role: 'company_retailer_manager', companyId: net.company.id, companyRetailerIds: [net.companyRetailer.id] },
    });
    const id = created.body.data.createUser.id;
    expect(created.body.data.createUser.companyRetailerIds).toEqual([net.companyRetailer.id]);

    const res = await gql(t, operator.key, UPDATE, { id, input: { name: 'Rita', role: 'company_sales_associate', companyRetailerLocationIds: [net.storeSouth.id] } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateUser).toMatchObject({ name: 'Rita', role: 'company_sales_associate', companyRetailerIds: [], companyRetailerLocationIds: [net.storeSouth.id] });

    const kept = await gql(t, operator.key, UPDATE, { id, input: { name: 'Rita B.' } });
    expect(kept.body.data.updateUser).toMatchObject({ name: 'Rita B.', role: 'company_sales_associate', companyRetailerLocationIds: [net.storeSouth.id] });

    const toRetailer = await gql(t, operator.key, UPDATE, { id, input: { role: 'retailer_admin' } });
    expect(code(toRetailer)).toBe('BAD_USER_INPUT');
    expect(details(toRetailer)).toEqual([['role', 'invalid']]);
  });

  test('a refused update leaves nothing behind for a later write of the same request', async () => {
    const { user } = await f.userWithKey(t.em(), Role.CompanyLocationUser, net.company, { companyRetailerLocations: [net.storeNorth] });
    const em = t.em();
    const ctx: Context = { em, caller: null, loaders: new Loaders(em), config: t.config, search: createSearchBackend(t.config, t.orm), geocoder: new NullGeocoder() };
    const service = new UserService(ctx, CLI_OPERATOR);
    await expect(service.update(user.id, { name: 'Changed', companyRetailerLocationIds: [other.storeNorth.id] })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await service.generateApiKey(user.id, 'after');
    const after = await gql(t, operator.key, GET, { id: user.id });
    expect(after.body.data.user).toMatchObject({ name: user.name, companyRetailerLocationIds: [net.storeNorth.id] });
  });

  test('422s: blank and malformed fields, membership, foreign or inapplicable assignments, taken email', async () => {
    const blank = await gql(t, operator.key, CREATE, { input: { email: ' ', role: null } });
    expect(details(blank)).toEqual([
      ['email', 'blank'],
      ['role', 'blank'],
    ]);

    const noCompany = await gql(t, operator.key, CREATE, { input: { email: 'not-an-email', role: 'company_admin', retailerId: net.retailer.id } });
    expect(details(noCompany)).toEqual([
      ['email', 'invalid'],
      ['company_id', 'blank'],
      ['retailer_id', 'invalid'],
    ]);

    const foreign = await gql(t, operator.key, CREATE, {
      input: { email: email('x'), role: 'company_territory_manager', companyId: net.company.id, territoryId: other.north.id },
    });
    expect(details(foreign)).toEqual([['territory_id', 'invalid']]);
    expect(foreign.body.errors[0].extensions.details[0].message).toBe("is not a territory of the user's company");

    const noTerritory = await gql(t, operator.key, CREATE, { input: { email: email('x'), role: 'company_territory_manager', companyId: net.company.id } });
    expect(details(noTerritory)).toEqual([['territory_id', 'blank']]);

    const foreignCrl = await gql(t, operator.key, CREATE, {
      input: { email: email('x'), role: 'company_location_user', companyId: net.company.id, companyRetailerLocationIds: [net.storeNorth.id, other.storeNorth.id] },
    });
    expect(details(foreignCrl)).toEqual([['company_retailer_location_ids', 'invalid']]);

    const foreignCr = await gql(t, operator.key, CREATE, {
      input: { email: email('x'), role: 'company_retailer_manager', companyId: net.company.id, companyRetailerIds: [other.companyRetailer.id] },
    });
    expect(details(foreignCr)).toEqual([['company_retailer_ids', 'invalid']]);

    const foreignRl = await gql(t, operator.key, CREATE, {
      input: { email: email('x'), role: 'retailer_store_manager', retailerId: net.retailer.id, retailerLocationIds: [other.storeNorth.retailerLocation!.id] },
    });
    expect(details(foreignRl)).toEqual([['retailer_location_ids', 'invalid']]);

    const inapplicable = await gql(t, operator.key, CREATE, {
      input: { email: email('x'), role: 'company_admin', companyId: net.company.id, territoryId: net.north.id, retailerLocationIds: [] },
    });
    expect(details(inapplicable)).toEqual([['territory_id', 'invalid']]);

    const missingCompany = await gql(t, operator.key, CREATE, { input: { email: email('x'), role: 'company_admin', companyId: '00000000-0000-4000-8000-000000000000' } });
    expect(details(missingCompany)).toEqual([['company_id', 'invalid']]);

    const taken = await gql(t, operator.key, CREATE, { input: { email: companyAdmin.user.email.toUpperCase(), role: 'company_admin', companyId: net.company.id } });
    expect(details(taken)).toEqual([['email', 'taken']]);

    const longLabel = await gql(t, operator.key, GENERATE, { userId: companyAdmin.user.id, label: 'x'.repeat(256) });
    expect(details(longLabel)).toEqual([['label', 'too_long']]);

    expect(await t.em().count(User, { email: { $like: 'x.%' } })).toBe(0);
  });

  test('concurrent creates of one email end in one user and 422 taken', async () => {
    const input = { email: email('race'), role: 'company_admin', companyId: net.company.id };
    const results = await Promise.all([1, 2, 3].map(() => gql(t, operator.key, CREATE, { input })));
    expect(results.filter((r) => r.body.data?.createUser)).toHaveLength(1);
    expect(results.filter((r) => code(r)).map(details)).toEqual([[['email', 'taken']], [['email', 'taken']]]);
    expect(await t.em().count(User, { email: input.email.toLowerCase() })).toBe(1);
  });

  test('unknown and malformed ids are NOT_FOUND', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      expect(code(await gql(t, operator.key, GET, { id }))).toBe('NOT_FOUND');
      expect(code(await gql(t, operator.key, KEYS, { userId: id }))).toBe('NOT_FOUND');
      expect(code(await gql(t, operator.key, REVOKE, { id }))).toBe('NOT_FOUND');
    }
    const res = await gql(t, operator.key, GET, { id: 'nope' });
    expect(res.body.errors[0].message).toBe("Couldn't find User with 'id'=nope");
  });
});

describe('company admin', () => {
  test('creates users of its own company by default and manages them', async () => {
    const res = await gql(t, companyAdmin.key, CREATE, {
      input: { email: email('assoc'), role: 'company_sales_associate', companyRetailerLocationIds: [net.storeNorth.id, net.storeSouth.id] },
    });
    expect(res.body.errors).toBeUndefined();
    const user = res.body.data.createUser;
    expect(user.companyId).toBe(net.company.id);
    expect([...user.companyRetailerLocationIds].sort()).toEqual([net.storeNorth.id, net.storeSouth.id].sort());

    const gen = await gql(t, companyAdmin.key, GENERATE, { userId: user.id });
    expect(gen.body.data.generateApiKey.apiKey.label).toBeNull();
    expect((await api(t, 'get', '/v1/products', { key: gen.body.data.generateApiKey.plainKey })).status).toBe(200);
    const revoked = await gql(t, companyAdmin.key, REVOKE, { id: gen.body.data.generateApiKey.apiKey.id });
    expect(revoked.body.errors).toBeUndefined();
  });

  test('lists only its own company users', async () => {
    const res = await gql(t, companyAdmin.key, LIST, { perPage: 500 });
    const nodes = res.body.data.users.nodes;
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((u: any) => u.companyId === net.company.id)).toBe(true);
    expect(res.body.data.users.meta.total).toBe(nodes.length);
  });

  test("another company's users and keys are NOT_FOUND", async () => {
    const target = otherCompanyAdmin.user.id;
    expect(code(await gql(t, companyAdmin.key, GET, { id: target }))).toBe('NOT_FOUND');
    expect(code(await gql(t, companyAdmin.key, UPDATE, { id: target, input: { name: 'x' } }))).toBe('NOT_FOUND');
    expect(code(await gql(t, companyAdmin.key, KEYS, { userId: target }))).toBe('NOT_FOUND');
    expect(code(await gql(t, companyAdmin.key, GENERATE, { userId: target }))).toBe('NOT_FOUND');
    expect(code(await gql(t, companyAdmin.key, GET, { id: operator.user.id }))).toBe('NOT_FOUND');
    expect(code(await gql(t, companyAdmin.key, GET, { id: retailerAdmin.user.id }))).toBe('NOT_FOUND');
    const [otherKey] = await t.em().find(ApiKey, { user: target });
    const revoke = await gql(t, companyAdmin.key, REVOKE, { id: otherKey.id });
    expect(revoke.body.errors[0]).toMatchObject({ message: `Couldn't find ApiKey with 'id'=${otherKey.id}`, extensions: { code: 'NOT_FOUND' } });
    expect((await api(t, 'get', '/v1/products', { key: otherCompanyAdmin.key })).status).toBe(200);
  });

  test('may not create users of another company, retailer users or platform operators', async () => {
    for (const input of [
      { email: email('x'), role: 'company_admin', companyId: other.company.id },
      { email: email('x'), role: 'retailer_admin', retailerId: net.retailer.id },
      { email: email('x'), role: 'platform_operator' },
    ]) {
      expect(code(await gql(t, companyAdmin.key, CREATE, { input }))).toBe('FORBIDDEN');
    }
    const foreign = await gql(t, companyAdmin.key, CREATE, { input: { email: email('x'), role: 'company_location_user', companyRetailerLocationIds: [other.storeSouth.id] } });
    expect(details(foreign)).toEqual([['company_retailer_location_ids', 'invalid']]);
  });
});

describe('retailer admin', () => {
  test('manages store managers of its own retailer only', async () => {
    const res = await gql(t, retailerAdmin.key, CREATE, { input: { email: email('store'), role: 'retailer_store_manager', retailerLocationIds: [net.storeSouth.retailerLocation!.id] } });
    expect(res.body.data.createUser).toMatchObject({ retailerId: net.retailer.id, retailerLocationIds: [net.storeSouth.retailerLocation!.id] });
    expect(code(await gql(t, retailerAdmin.key, CREATE, { input: { email: email('x'), role: 'company_admin', companyId: net.company.id } }))).toBe('FORBIDDEN');
    expect(code(await gql(t, retailerAdmin.key, GET, { id: companyAdmin.user.id }))).toBe('NOT_FOUND');
    const list = await gql(t, retailerAdmin.key, LIST, {});
    expect(list.body.data.users.nodes.every((u: any) => u.retailerId === net.retailer.id)).toBe(true);
  });
});

describe('other callers', () => {
  test.each([Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerStoreManager])(
    '%s is FORBIDDEN everywhere',
    async (role) => {
      const org = role === Role.RetailerStoreManager ? net.retailer : net.company;
      const caller = await f.userWithKey(t.em(), role, org, role === Role.CompanyTerritoryManager ? { territory: net.north } : {});
      expect(code(await gql(t, caller.key, LIST))).toBe('FORBIDDEN');
      expect(code(await gql(t, caller.key, GET, { id: caller.user.id }))).toBe('FORBIDDEN');
      expect(code(await gql(t, caller.key, KEYS, { userId: caller.user.id }))).toBe('FORBIDDEN');
      expect(code(await gql(t, caller.key, GENERATE, { userId: caller.user.id }))).toBe('FORBIDDEN');
      expect(code(await gql(t, caller.key, CREATE, { input: { email: email('x'), role: 'company_admin' } }))).toBe('FORBIDDEN');
      expect(code(await gql(t, caller.key, UPDATE, { id: caller.user.id, input: { role: 'company_admin' } }))).toBe('FORBIDDEN');
    },
  );

  test('no key is UNAUTHENTICATED', async () => {
    expect(code(await gql(t, null, LIST))).toBe('UNAUTHENTICATED');
    expect(code(await gql(t, 'lnk_unknownunknownunknown', GENERATE, { userId: operator.user.id }))).toBe('UNAUTHENTICATED');
  });
});

test('a users page costs the same statements whatever its size', async () => {
  const em = t.em();
  const acme = await f.company(em);
  for (let i = 0; i < 12; i++) await f.userWithKey(em, Role.CompanySalesAssociate, acme, { companyRetailerLocations: [net.storeNorth] });
  const where = { companyId: { eq: acme.id } };
  const count = async (perPage: number) => {
    t.resetStatements();
    const res = await gql(t, operator.key, LIST, { where, perPage });
    expect(res.body.data.users.nodes).toHaveLength(perPage);
    return t.statements.length;
  };
  expect(await count(12)).toBe(await count(2));
});
