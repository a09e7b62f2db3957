// The audit log (docs/personal-data.md "Audit log"): audited changes made over GraphQL land in their
// company's hash chain, in the change's own transaction; a company admin reads its own company's chain,
// the platform operator any; every other role is FORBIDDEN; UPDATE and DELETE are refused.
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { roles } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { audit, canonicalDetails, CLI_ACTOR, entryHash, systemActor, verifyChain } from '../../src/modules/audit/audit.service';
import { randomUUID } from 'node:crypto';
import { PLATFORM_CHAIN } from '../../src/modules/audit/audit.repository';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const LOG = `query($companyId: ID, $where: AuditLogWhere, $first: Int, $after: String) {
  auditLog(companyId: $companyId, where: $where, first: $first, after: $after) {
    entries { id companyId sequence at actorType actorId apiKeyId action targetType targetId details hash previousHash } hasNextPage endCursor } }`;

const keyId = async (userId: string) => ((await t.em().execute(`select id from api_keys where user_id = ? order by created_at limit 1`, [userId])) as any[])[0].id;

function ok(res: { body: any }) {
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

test('audited changes over GraphQL are in the company\'s chain, by whom, with what changed and no personal data; filters and pages', async () => {
  const { net, users } = await roles(t.em());
  const admin = users.companyAdmin;
  const adminKeyId = await keyId(admin.user.id);
  const k = admin.key;

  const created = ok(
    await gql(t, k, `mutation($i: CreateUserInput!) { createUser(input: $i) { id } }`, {
      i: { email: 'Secret.Person@example.test', name: 'Secretname Person', role: Role.CompanyTerritoryManager, territoryId: net.north.id },
    }),
  ).createUser;
  ok(await gql(t, k, `mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { id } }`, { id: created.id, i: { role: Role.CompanyAdmin } }));
  ok(await gql(t, k, `mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { id } }`, { id: created.id, i: { name: 'Othername Person' } }));
  const key = ok(await gql(t, k, `mutation($u: ID!) { generateApiKey(userId: $u, label: "CRM") { apiKey { id } plainKey } }`, { u: created.id })).generateApiKey;
  ok(await gql(t, k, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: key.apiKey.id }));
  ok(await gql(t, k, `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: key.apiKey.id })); // already revoked: nothing to record
  ok(await gql(t, k, `mutation { updateRoutingSettings(input: { enabled: true, roundRobin: true }) { enabled } }`));
  ok(await gql(t, k, `mutation { updateRoutingSettings(input: { enabled: true }) { enabled } }`)); // no change: no entry
  ok(await gql(t, k, `mutation { updateResponseTimeSettings(input: { firstResponseMinutes: 90 }) { firstResponseMinutes } }`));
  const siteKey = ok(await gql(t, k, `mutation { createSiteKey(input: { name: "Shop", allowedOrigins: ["https://shop.example.com"] }) { id key } }`)).createSiteKey;
  ok(await gql(t, k, `mutation($id: ID!) { revokeSiteKey(id: $id) { id } }`, { id: siteKey.id }));
  ok(await gql(t, k, `mutation($c: ID!) { importProducts(companyId: $c, csv: "sku,name\\nA-1,Anvil\\n", dryRun: true) { rows } }`, { c: net.company.id }));
  ok(await gql(t, k, `mutation($c: ID!) { importProducts(companyId: $c, csv: "sku,name\\nA-1,Anvil\\nA-2,Bolt\\n") { rows } }`, { c: net.company.id }));

  const page = ok(await gql(t, k, LOG, { first: 200 })).auditLog;
  const entries = [...page.entries].reverse();
  expect(entries.map((e: any) => e.action)).toEqual([
    'user.created',
    'user.role_changed',
    'user.updated',
    'api_key.created',
    'api_key.revoked',
    'settings.routing_changed',
    'settings.response_times_changed',
    'site_key.created',
    'site_key.revoked',
    'import.run',
  ]);
  expect(entries.map((e: any) => e.sequence)).toEqual(entries.map((_: any, i: number) => i + 1));
  for (const e of entries) {
    expect(e).toMatchObject({ companyId: net.company.id, actorType: 'USER', actorId: admin.user.id, apiKeyId: adminKeyId });
    expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
  }
  expect(entries[0].previousHash).toBe('0'.repeat(64));
  entries.slice(1).forEach((e: any, i: number) => expect(e.previousHash).toBe(entries[i].hash));
  expect(entries[0]).toMatchObject({ targetType: 'user', targetId: created.id, details: { role: Role.CompanyTerritoryManager, territory_id: net.north.id, company_id: net.company.id } });
  expect(entries[1].details).toEqual({
    role: { from: Role.CompanyTerritoryManager, to: Role.CompanyAdmin },
    territory_id: { from: net.north.id, to: null },
    fields: ['role', 'territory_id'],
  });
  expect(entries[2].details).toEqual({ fields: ['name'] });
  expect(entries[3]).toMatchObject({ targetType: 'api_key', targetId: key.apiKey.id, details: { user_id: created.id } });
  expect(entries[4]).toMatchObject({ targetType: 'api_key', targetId: key.apiKey.id });
  expect(entries[5]).toMatchObject({ targetType: 'company', targetId: net.company.id, details: { enabled: { from: false, to: true }, roundRobin: { from: false, to: true } } });
  expect(entries[6].details).toEqual({ firstResponseMinutes: { from: null, to: 90 } });
  expect(entries[7]).toMatchObject({ targetType: 'site_key', targetId: siteKey.id, details: { name: 'Shop', allowed_origins: ['https://shop.example.com'] } });
  expect(entries[9].details).toEqual({ kind: 'products', source: 'text', rows: 2, created: 2, updated: 0, unchanged: 0, invalid: 0 });
  // Never personal data, a key or a secret.
  const text = JSON.stringify(page);
  for (const secret of ['Secret.Person', 'secret.person', 'Secretname', 'Othername', key.plainKey, siteKey.key, admin.key]) expect(text).not.toContain(secret);

  // Filters.
  const only = async (where: Record<string, unknown>) => ok(await gql(t, k, LOG, { where })).auditLog.entries.map((e: any) => e.action);
  expect(await only({ action: ['api_key.created', 'api_key.revoked'] })).toEqual(['api_key.revoked', 'api_key.created']);
  expect(await only({ targetType: 'user', targetId: created.id })).toEqual(['user.updated', 'user.role_changed', 'user.created']);
  expect(await only({ actorId: users.otherAdmin.user.id })).toEqual([]);
  expect(await only({ atFrom: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
  expect(await only({ atTo: entries[1].at, atFrom: entries[0].at })).toEqual(['user.created']);

  // Pages by sequence: 4, 4, 2, the same entries in the same order.
  const seen: number[] = [];
  let after: string | null = null;
  for (let i = 0; i < 5; i++) {
    const p: any = ok(await gql(t, k, LOG, { first: 4, after })).auditLog;
    seen.push(...p.entries.map((e: any) => e.sequence));
    if (!p.hasNextPage) break;
    after = p.endCursor;
  }
  expect(seen).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);

  // The platform operator reads it by company; the chain verifies.
  expect(ok(await gql(t, users.operator.key, LOG, { companyId: net.company.id, first: 200 })).auditLog.entries).toHaveLength(10);
  expect((await verifyChain(t.em(), net.company.id)).problem).toBeNull();

  // Malformed arguments are BAD_USER_INPUT, never a 5xx.
  for (const vars of [
    { first: 0 },
    { first: 201 },
    { after: 'abc' },
    { after: '-1' },
    { after: '99999999999999999999' },
    { where: { targetId: 'x'.repeat(300) } },
    { where: { action: Array.from({ length: 51 }, (_, i) => `a${i}`) } },
    { where: { atFrom: 'yesterday' } },
    { where: { actorId: 42 } },
    { companyId: ['x'] },
  ]) {
    const res = await gql(t, k, LOG, vars);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors[0].extensions.code).toMatch(/^(BAD_USER_INPUT|BAD_REQUEST)$/);
  }
});

test('who reads: a company admin its own chain only, the operator any; every other role FORBIDDEN, another company NOT_FOUND', async () => {
  const { net, other, users } = await roles(t.em());
  await audit.record(t.em(), CLI_ACTOR, 'settings.routing_changed', { type: 'company', id: net.company.id, companyId: net.company.id }, { enabled: { from: false, to: true } });
  await audit.record(t.em(), CLI_ACTOR, 'settings.routing_changed', { type: 'company', id: other.company.id, companyId: other.company.id }, {});

  const mine = ok(await gql(t, users.companyAdmin.key, LOG)).auditLog.entries;
  expect(mine.map((e: any) => [e.companyId, e.actorType, e.actorId])).toEqual([[net.company.id, 'OPERATOR', null]]);
  expect(ok(await gql(t, users.companyAdmin.key, LOG, { companyId: net.company.id })).auditLog.entries).toHaveLength(1);
  // Another company's chain, or one that does not exist, or a malformed id: NOT_FOUND.
  for (const companyId of [other.company.id, '00000000-0000-0000-0000-000000000001', 'nope', PLATFORM_CHAIN]) {
    const res = await gql(t, users.companyAdmin.key, LOG, { companyId });
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(res.body.data).toBeNull();
  }
  const theirs = ok(await gql(t, users.otherAdmin.key, LOG)).auditLog.entries;
  expect(theirs.map((e: any) => e.companyId)).toEqual([other.company.id]);
  expect(ok(await gql(t, users.operator.key, LOG, { companyId: other.company.id })).auditLog.entries).toHaveLength(1);

  // Store users, territory and retailer managers, the retailer's users: FORBIDDEN, for their own company too.
  for (const u of [users.territoryManager, users.retailerManager, users.locationUser, users.salesAssociate, users.retailerAdmin, users.storeManager]) {
    for (const companyId of [undefined, net.company.id, other.company.id]) {
      const res = await gql(t, u.key, LOG, { companyId });
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(res.body.data).toBeNull();
    }
  }
  expect((await gql(t, null, LOG)).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
});

test('entries without a company are on the platform chain, read by the operator only', async () => {
  const { net, users } = await roles(t.em());
  // A retailer admin's new user belongs to no company.
  const made = ok(
    await gql(t, users.retailerAdmin.key, `mutation($i: CreateUserInput!) { createUser(input: $i) { id } }`, {
      i: { email: `store.${Date.now()}@example.test`, role: Role.RetailerStoreManager, retailerLocationIds: [net.storeNorth.retailerLocation!.id] },
    }),
  ).createUser;
  const platform = ok(await gql(t, users.operator.key, LOG, { where: { targetId: made.id } })).auditLog.entries;
  expect(platform).toMatchObject([{ companyId: null, action: 'user.created', actorId: users.retailerAdmin.user.id }]);
  expect((await gql(t, users.retailerAdmin.key, LOG)).body.errors[0].extensions.code).toBe('FORBIDDEN');
});

test('an entry is written with the change it records: rolled back together; appends to one chain take turns', async () => {
  const brand = await f.company(t.em());
  const target = { type: 'company', id: brand.id, companyId: brand.id };
  await expect(
    t.em().transactional(async (tx) => {
      await audit.record(tx as EntityManager, systemActor('test'), 'settings.routing_changed', target, { a: 1 });
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  expect(await t.em().execute(`select count(*)::int as n from audit_entries where chain_id = ?`, [brand.id])).toEqual([{ n: 0 }]);

  await Promise.all(Array.from({ length: 12 }, (_, i) => audit.record(t.em(), systemActor('test'), 'import.run', target, { i })));
  const rows = (await t.em().execute(`select seq from audit_entries where chain_id = ? order by seq`, [brand.id])) as any[];
  expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  const last = ((await t.em().execute(`select hash from audit_entries where chain_id = ? and seq = 12`, [brand.id])) as any[])[0].hash;
  expect(await verifyChain(t.em(), brand.id)).toEqual({ companyId: brand.id, entries: 12, lastSequence: 12, lastHash: last, problem: null });
  // Walked in pages smaller than the chain, it is the same.
  expect(await verifyChain(t.em(), brand.id, 5)).toEqual({ companyId: brand.id, entries: 12, lastSequence: 12, lastHash: last, problem: null });
});

test('UPDATE, DELETE and TRUNCATE of entries are refused by the database', async () => {
  const brand = await f.company(t.em());
  await audit.record(t.em(), CLI_ACTOR, 'import.run', { type: 'company', id: brand.id, companyId: brand.id }, {});
  await expect(t.em().execute(`update audit_entries set details = '{"x":1}' where chain_id = ?`, [brand.id])).rejects.toThrow(/append-only: UPDATE refused/);
  await expect(t.em().execute(`delete from audit_entries where chain_id = ?`, [brand.id])).rejects.toThrow(/append-only: DELETE refused/);
  await expect(t.em().execute(`truncate audit_entries`)).rejects.toThrow(/append-only: TRUNCATE refused/);
  expect(await t.em().execute(`select count(*)::int as n from audit_entries where chain_id = ?`, [brand.id])).toEqual([{ n: 1 }]);
});

test('a page of the log is one statement whatever its size', async () => {
  const { net, users } = await roles(t.em());
  for (let i = 0; i < 30; i++) await audit.record(t.em(), CLI_ACTOR, 'import.run', { type: 'company', id: net.company.id, companyId: net.company.id }, { i });
  const count = async (first: number) => {
    t.resetStatements();
    const page = ok(await gql(t, users.companyAdmin.key, LOG, { first })).auditLog;
    expect(page.entries).toHaveLength(first);
    return t.statements.filter((s) => /audit_entries/.test(s)).length;
  };
  const small = await count(2);
  expect(small).toBe(1);
  expect(await count(25)).toBe(small);
});

test('notification settings changed are recorded on the user\'s company chain: frequencies and language with their values, the time zone by name only', async () => {
  const { net, users } = await roles(t.em());
  const PREFS = `mutation($i: NotificationPreferencesInput!, $u: ID) { updateNotificationPreferences(input: $i, userId: $u) { leadAssigned } }`;
  ok(await gql(t, users.companyAdmin.key, PREFS, { u: users.locationUser.user.id, i: { leadAssigned: 'OFF', timeZone: 'Europe/Paris' } }));
  ok(await gql(t, users.locationUser.key, PREFS, { i: { locale: 'FR' } }));
  ok(await gql(t, users.locationUser.key, PREFS, { i: { locale: 'FR' } })); // no change: no entry
  const entries = ok(await gql(t, users.companyAdmin.key, LOG, { where: { action: ['notification_preferences.changed'] } })).auditLog.entries;
  expect(entries.map((e: any) => [e.actorId, e.targetType, e.targetId, e.details])).toEqual([
    [users.locationUser.user.id, 'user', users.locationUser.user.id, { locale: { from: 'en', to: 'fr' }, fields: ['locale'] }],
    [users.companyAdmin.user.id, 'user', users.locationUser.user.id, { leadAssigned: { from: 'immediate', to: 'off' }, fields: ['leadAssigned', 'timeZone'] }],
  ]);
  expect(JSON.stringify(entries)).not.toContain('Paris');
  expect(entries.every((e: any) => e.companyId === net.company.id)).toBe(true);
});

test('verify reads a long chain 1,000 entries a statement (memory bounded by the page, not the chain) and finds a change deep in it', async () => {
  const brand = await f.company(t.em());
  const n = 2500;
  let prev = '0'.repeat(64);
  const rows = [];
  for (let seq = 1; seq <= n; seq++) {
    const c = { id: randomUUID(), chainId: brand.id, seq, at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(), actorType: 'system', actorId: 'bench', apiKeyId: null, action: 'import.run', targetType: 'company', targetId: brand.id, details: canonicalDetails({ seq }) };
    const hash = entryHash(prev, c);
    rows.push({ id: c.id, chain_id: c.chainId, seq, at: c.at, actor_type: c.actorType, actor_id: c.actorId, action: c.action, target_type: c.targetType, target_id: c.targetId, details: JSON.parse(c.details), prev_hash: prev, hash });
    prev = hash;
  }
  await t.em().execute(
    `insert into audit_entries (id, chain_id, seq, at, actor_type, actor_id, action, target_type, target_id, details, prev_hash, hash)
     select id, chain_id, seq, at, actor_type, actor_id, action, target_type, target_id, details, prev_hash, hash
       from jsonb_to_recordset(?::jsonb) as r(id uuid, chain_id uuid, seq bigint, at timestamptz, actor_type text, actor_id text, action text, target_type text, target_id text, details jsonb, prev_hash text, hash text)`,
    [JSON.stringify(rows)],
  );
  await t.em().execute(`insert into audit_chains (chain_id, last_seq, last_hash) values (?, ?, ?)`, [brand.id, n, prev]);

  t.resetStatements();
  expect(await verifyChain(t.em(), brand.id)).toEqual({ companyId: brand.id, entries: n, lastSequence: n, lastHash: prev, problem: null });
  expect(t.statements.filter((s) => /from audit_entries/.test(s))).toHaveLength(3);

  await t.em().execute(`alter table audit_entries disable trigger audit_entries_append_only`);
  try {
    await t.em().execute(`update audit_entries set actor_id = 'someone else' where chain_id = ? and seq = 1700`, [brand.id]);
  } finally {
    await t.em().execute(`alter table audit_entries enable trigger audit_entries_append_only`);
  }
  const report = await verifyChain(t.em(), brand.id);
  expect(report).toMatchObject({ entries: 1700, lastSequence: 1699, problem: { kind: 'changed', sequence: 1700 } });
  // The log is appended to after the change as before; the change stays reported.
  await audit.record(t.em(), CLI_ACTOR, 'import.run', { type: 'company', id: brand.id, companyId: brand.id }, {});
  expect((await verifyChain(t.em(), brand.id)).problem).toMatchObject({ kind: 'changed', sequence: 1700 });
});

test('a change whose entry cannot be written is not made: the entry and the change commit together', async () => {
  const { net, users } = await roles(t.em());
  // A fault in the log's table (as a full disk or a lost connection would be), for this company only.
  await t.em().execute(`create function audit_test_fault() returns trigger language plpgsql as $$
    begin if new.chain_id = '${net.company.id}' then raise exception 'audit fault'; end if; return new; end $$`);
  await t.em().execute(`create trigger audit_test_fault before insert on audit_entries for each row execute function audit_test_fault()`);
  try {
    const key = await gql(t, users.companyAdmin.key, `mutation { createSiteKey(input: { name: "Shop", allowedOrigins: ["https://shop.example.com"] }) { id } }`);
    expect(key.body.errors).toHaveLength(1);
    const routing = await gql(t, users.companyAdmin.key, `mutation { updateRoutingSettings(input: { enabled: true }) { enabled } }`);
    expect(routing.body.errors).toHaveLength(1);
    const user = await gql(t, users.companyAdmin.key, `mutation($i: CreateUserInput!) { createUser(input: $i) { id } }`, {
      i: { email: `faulty.${Date.now()}@example.test`, role: Role.CompanyAdmin },
    });
    expect(user.body.errors).toHaveLength(1);
  } finally {
    await t.em().execute(`drop trigger audit_test_fault on audit_entries`);
    await t.em().execute(`drop function audit_test_fault()`);
  }
  expect(await t.em().execute(`select count(*)::int as n from site_keys where company_id = ?`, [net.company.id])).toEqual([{ n: 0 }]);
  expect(await t.em().execute(`select count(*)::int as n from company_routing_settings where company_id = ? and enabled`, [net.company.id])).toEqual([{ n: 0 }]);
  expect(await t.em().execute(`select count(*)::int as n from users where email like 'faulty.%'`)).toEqual([{ n: 0 }]);
  // Without the fault, the same changes are made and recorded.
  ok(await gql(t, users.companyAdmin.key, `mutation { updateRoutingSettings(input: { enabled: true }) { enabled } }`));
  expect(ok(await gql(t, users.companyAdmin.key, LOG)).auditLog.entries.map((e: any) => e.action)).toEqual(['settings.routing_changed']);
});
