import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { authenticate } from '../../src/auth/api-keys';
import { demoBanner, demoJson, demoKeysFile, demoSeedWanted, seedDemo, writeDemoKeys, type DemoSeed } from '../../src/modules/demo/demo-seed';
import { modules } from '../../src/modules';
import { Role } from '../../src/modules/user/role';
import { Company } from '../../src/modules/company/company.entity';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from '../../src/modules/retailer-location/retailer-location.entity';
import { Stock } from '../../src/modules/product/stock.entity';
import { User } from '../../src/modules/user/user.entity';
import { loadAssignments } from '../../src/modules/user/user.service';
import { userDemo } from '../../src/modules/user/user.demo';
import { PEOPLE } from '../../src/modules/demo/demo-network';
import type { DemoPart } from '../../src/modules/demo/demo-part';
import { exampleTabs } from '../../src/graphiql/examples';

let t: TestApp;
let seed: DemoSeed;
let banner: string;
const BASE = 'http://localhost:3000';

beforeAll(async () => {
  t = await createTestApp();
  seed = (await seedDemo(t.em(), modules))!;
  banner = demoBanner(seed, BASE);
});
afterAll(() => t.close());

test('only an embedded start seeds, unless SEED_DEMO is false', () => {
  expect(demoSeedWanted({ databaseUrl: undefined, seedDemo: true })).toBe(true);
  expect(demoSeedWanted({ databaseUrl: undefined, seedDemo: false })).toBe(false);
  expect(demoSeedWanted({ databaseUrl: 'postgres://db/leadnet', seedDemo: true })).toBe(false);
});

test('seeds one user of every role, and each printed key authenticates as that user', async () => {
  expect(seed.users.map((u) => u.role).sort()).toEqual(Object.values(Role).sort());
  const printedKeys = [...banner.matchAll(/^ {2}(\w+) +(\S+@\S+) +(\S+)$/gm)].map(([, role, email, key]) => ({ role, email, key }));
  expect(printedKeys).toHaveLength(Object.values(Role).length);
  for (const printed of printedKeys) {
    const caller = await authenticate(t.em(), printed.key);
    const user = seed.users.find((u) => u.email === printed.email)!;
    expect(caller).toMatchObject({ userId: user.id, role: printed.role });
  }
});

test('every scoped role has an assignment of its own company or retailer', async () => {
  const em = t.em();
  const users = await em.find(User, {}, { populate: ['territory'] });
  const byRole = new Map(users.map((u) => [u.role, u]));
  const assignments = await loadAssignments(em, users.map((u) => u.id));
  const of = (role: Role) => assignments[users.indexOf(byRole.get(role)!)];
  expect(byRole.get(Role.CompanyTerritoryManager)!.territory?.name).toBe('Pacific Northwest');
  expect(of(Role.CompanyRetailerManager).companyRetailerIds).toHaveLength(1);
  expect(of(Role.CompanyLocationUser).companyRetailerLocationIds).toEqual([seed.stores[0].companyRetailerLocationId]);
  expect(of(Role.CompanySalesAssociate).companyRetailerLocationIds).toHaveLength(2);
  expect(of(Role.RetailerStoreManager).retailerLocationIds).toEqual([seed.stores[1].retailerLocationId]);
  for (const u of users) {
    if (u.role.startsWith('company_')) expect(u.companyId).toBe(seed.company.id);
    if (u.role.startsWith('retailer_')) expect(u.retailerId).toBe(seed.retailer.id);
  }
});

test('stores have addresses with coordinates, hours, email, phone, lead flags and stock', async () => {
  const em = t.em();
  const crls = await em.find(CompanyRetailerLocation, {}, { populate: ['retailerLocation.physicalAddress', 'retailerLocation.generalEmail', 'retailerLocation.generalPhoneNumber', 'retailerLocation.hours', 'companyStoreType', 'territory'] });
  expect(crls).toHaveLength(4);
  for (const crl of crls) {
    const rl = crl.retailerLocation as RetailerLocation;
    expect(crl).toMatchObject({ sendingLeads: true, receivingLeads: true });
    expect(rl.physicalAddress).toMatchObject({ latitude: expect.any(Number), longitude: expect.any(Number), coordinatesSource: 'explicit' });
    expect(rl.generalEmail?.email).toMatch(/@summit-sports\.example$/);
    expect(rl.generalPhoneNumber?.phoneNumber).toMatch(/^\+1\d{10}$/);
    expect(rl.hours).toHaveLength(7);
    expect(rl.timezone).toMatch(/^America\//);
    expect(crl.companyStoreType).not.toBeNull();
    expect(crl.territory).not.toBeNull();
  }
  expect(await em.count(Stock, {})).toBe(4 * seed.products.length);
});

test('the example requests work with the printed keys', async () => {
  const admin = seed.users.find((u) => u.role === Role.CompanyAdmin)!;
  const json = demoJson(seed, BASE);
  expect(json.examples.list_products).toContain(admin.apiKey);
  const products = await api(t, 'get', '/v1/products', { key: admin.apiKey });
  expect(products.body.products.map((p: any) => p.sku).sort()).toEqual(seed.products.map((p) => p.sku).sort());

  const body = JSON.parse(json.examples.create_lead.match(/-d '(.*)'$/m)![1]);
  expect(body.lead).toMatchObject({ assignee_type: 'CompanyRetailerLocation', assignee_id: seed.stores[0].companyRetailerLocationId });
  expect(body.lead.lead_activities[0]).toMatchObject({ type: 'LeadActivity::QuoteRequest', data: { products: [expect.objectContaining({ sku: seed.products[0].sku })] } });
  expect(banner).toContain(json.examples.create_lead.split('\n')[0]);

  const operator = seed.users.find((u) => u.role === Role.PlatformOperator)!;
  const users = await gql(t, operator.apiKey, `{ users { meta { total } } }`);
  expect(users.body.data.users.meta.total).toBe(Object.values(Role).length);
});

test('the demo has leads with timelines across stores and statuses, visible by scope', async () => {
  const key = (role: Role) => seed.users.find((u) => u.role === role)!.apiKey;
  expect(seed.leads).toBe(300);
  const list = await api(t, 'get', '/v1/leads?opts[aggs][]=status&opts[per_page]=5&include=*', { key: key(Role.CompanyAdmin) });
  expect(list.body.meta.total).toBe(300);
  const statuses = list.body.meta.aggs.status.buckets.map((b: any) => b.key);
  expect(statuses.sort()).toEqual(['Contacted', 'Lost', 'New', 'Quoted', 'Won']);
  expect(banner).toContain('300 leads');

  // Every timeline starts with a first contact and an assignment, and its last status change is the status.
  const gqlPage = await gql(t, key(Role.CompanyAdmin), `{ leads(perPage: 300) { nodes { status assigneeId emails { email } leadActivities { type data } } } }`);
  const leads = gqlPage.body.data.leads.nodes;
  expect(new Set(leads.map((l: any) => l.assigneeId)).size).toBe(4);
  for (const lead of leads) {
    const oldestFirst = [...lead.leadActivities].reverse();
    expect(oldestFirst[1].type).toBe('LeadActivity::Assignment');
    const changes = oldestFirst.filter((a: any) => a.type === 'LeadActivity::StatusChange');
    expect(changes.length ? changes[changes.length - 1].data.to : 'New').toBe(lead.status);
    expect(lead.emails).toHaveLength(1);
  }

  // The location user of the Portland store sees that store's leads only.
  const portland = await api(t, 'get', '/v1/leads?opts[per_page]=1', { key: key(Role.CompanyLocationUser) });
  expect(portland.body.meta.total).toBe(75);
});

test("GraphiQL's example tabs run as they open on the fresh demo, with every key but the platform operator's (who reads no leads or stores)", async () => {
  const title = (tab: { query: string }) => /^query (\w+)/m.exec(tab.query)![1];
  const outcomes: Record<string, Record<string, string>> = {};
  const expected: Record<string, Record<string, string>> = {};
  for (const user of seed.users) {
    for (const tab of exampleTabs) {
      const res = await gql(t, user.apiKey, tab.query, tab.variables ? JSON.parse(tab.variables) : {});
      (outcomes[user.role] ??= {})[title(tab)] = res.body.errors ? res.body.errors.map((e: any) => `${e.extensions?.code}: ${e.message}`).join('; ') : 'ok';
      (expected[user.role] ??= {})[title(tab)] = user.role === Role.PlatformOperator ? 'FORBIDDEN: Unauthorized' : 'ok';
      // The timeline tab shows a lead and its timeline to each key that sees leads.
      if (title(tab) === 'LeadTimeline' && !res.body.errors) expect(res.body.data.leads.nodes[0].leadActivities.length).toBeGreaterThan(1);
    }
  }
  expect(outcomes).toEqual(expected);
});

test("the README's example lead and the banner's are different people: following both creates two leads", async () => {
  const admin = seed.users.find((u) => u.role === Role.CompanyAdmin)!.apiKey;
  const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const readmeBody = JSON.parse(readme.match(/-d '(\{"lead":[^']*)'/)![1]);
  const bannerBody = JSON.parse(demoJson(seed, BASE).examples.create_lead.match(/-d '(.*)'$/m)![1]);
  const first = await api(t, 'post', '/v1/leads', { key: admin, body: readmeBody });
  const second = await api(t, 'post', '/v1/leads', { key: admin, body: bannerBody });
  expect([first.status, second.status]).toEqual([201, 201]);
  expect(first.body.id).not.toBe(second.body.id);
  expect((await api(t, 'get', '/v1/leads?opts[per_page]=1', { key: admin })).body.meta.total).toBe(302);
});

test("the keys file of a start's seed: for its owner only (0600), replacing one an earlier seed left whatever its mode, never writing through a link in its place", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadnet-demo-keys-'));
  try {
    const file = demoKeysFile(dir);
    expect(file).toBe(path.join(dir, 'demo-keys.json'));
    writeFileSync(file, 'from an earlier seed', { mode: 0o644 });
    expect(writeDemoKeys(dir, seed, BASE)).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(demoJson(seed, BASE));

    const elsewhere = path.join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'not the keys', { mode: 0o644 });
    rmSync(file);
    symlinkSync(elsewhere, file);
    writeDemoKeys(dir, seed, BASE);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not the keys');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a database that has a company is never seeded again', async () => {
  expect(await seedDemo(t.em(), modules)).toBeNull();
  expect(await t.em().count(Company, {})).toBe(1);
  expect(await t.em().count(User, {})).toBe(Object.values(Role).length);
});

test('a database without companies but with a demo user email is left alone', async () => {
  const t2 = await createTestApp();
  try {
    const em = t2.em();
    em.create(User, { email: 'operator@leadnet.example', role: Role.PlatformOperator, name: 'Bootstrapped' });
    await em.flush();
    expect(await seedDemo(t2.em(), modules)).toBeNull();
    expect(await t2.em().count(User, {})).toBe(1);
  } finally {
    await t2.close();
  }
});

test('a seed that fails half-way through its writes leaves nothing, and the next start seeds the whole demo', async () => {
  const t2 = await createTestApp();
  try {
    // A last part whose user repeats a demo user's email: the flush has written the companies, retailers,
    // stores and leads when the users' insert fails on the unique email.
    const breaking: DemoPart = {
      name: 'breaking',
      after: [userDemo],
      seed: (demo) => demo.tx.create(User, { email: PEOPLE[0].email, role: Role.PlatformOperator, name: 'Twin' }),
    };
    await expect(seedDemo(t2.em(), [...modules, { demo: [breaking] } as any])).rejects.toThrow(/users_email/);
    expect(await t2.em().count(Company, {})).toBe(0);
    expect(await t2.em().count(User, {})).toBe(0);
    expect(await t2.em().count(CompanyRetailerLocation, {})).toBe(0);
    const again = await seedDemo(t2.em(), modules);
    expect(again?.users).toHaveLength(Object.values(Role).length);
    expect(await t2.em().count(Company, {})).toBe(1);
  } finally {
    await t2.close();
  }
});
