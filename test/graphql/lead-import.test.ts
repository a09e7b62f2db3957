import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { createTestApp, gql, type TestApp } from '../support/app';
import { runLeadnet } from '../support/cli';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

/** The lead import (docs/import-export.md): GraphQL `importLeads` over HTTP and `leadnet import leads` once. */
let t: TestApp;
let dir: string;
jest.setTimeout(60_000);

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-import-leads-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const IMPORT = `mutation($c: ID!, $csv: String!, $dry: Boolean) {
  importLeads(companyId: $c, csv: $csv, dryRun: $dry) { rows created updated unchanged invalid dryRun ignoredColumns errors { row column reason } } }`;

const HEADER = 'name,email,phone,street_line_one,city,postal_code,country,source_type,assignee,message,consent_purpose,consent_text,consent_version,consent_given_at,company_id\n';

async function leadsOf(companyId: string) {
  return (await t.em().execute(
    `select l.name, l.assignee_id, (select string_agg(e.email, ';' order by e.email) from emails e where e.lead_id = l.id) as emails,
            (select json_agg(json_build_object('source', c.source, 'text', c.text, 'version', c.version, 'given_at', c.given_at) order by c.given_at) from lead_consents c where c.lead_id = l.id) as consents,
            (select count(*)::int from lead_activities a where a.lead_id = l.id and a.data->>'message' is not null) as notes
       from leads l where l.owner_company_id = ? order by l.name`,
    [companyId],
  )) as any[];
}

test('importLeads: a dry run writes nothing; the import creates leads with consents of source import, skips a bad row, merges a duplicate, and is audited', async () => {
  const net = await f.network(t.em());
  await t.em().execute(`update company_retailer_locations set external_id = 'PDX-1' where id = ?`, [net.storeNorth.id]);
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, net.company);
  const existing = await gql(t, admin.key, `mutation { createLead(input: { name: "Old Lead", emails: [{ email: "dup@example.test" }] }) { id } }`);
  expect(existing.body.errors).toBeUndefined();
  const csv =
    HEADER +
    'Ada Import,ada@example.test;ada.work@example.test,(503) 555-0101,1 Main St,Portland,97209,US,ContactForm,PDX-1,Call me after 5,contact,We may contact you.,v3,2026-11-01T10:00:00Z,x\n' +
    'No Contact,,,,,,,,,,,,,,\n' + // line 3: no email or phone
    'Bad Consent,bad@example.test,,,,,,,NOPE,,contact,,v1,yesterday,\n' + // line 4: unknown store, bad time
    'Dup Person,DUP@example.test,,,,,,,,,,Text only,v1,,\n'; // merges into Old Lead
  const dry = await gql(t, admin.key, IMPORT, { c: net.company.id, csv, dry: true });
  expect(dry.body.data.importLeads).toMatchObject({ rows: 4, created: 1, updated: 1, invalid: 2, dryRun: true, ignoredColumns: ['company_id'] });
  expect((await leadsOf(net.company.id)).map((l) => l.name)).toEqual(['Old Lead']);

  const res = await gql(t, admin.key, IMPORT, { c: net.company.id, csv });
  const report = res.body.data.importLeads;
  expect(report).toMatchObject({ rows: 4, created: 1, updated: 1, unchanged: 0, invalid: 2, dryRun: false });
  expect(report.errors).toEqual([
    { row: 3, column: 'email', reason: 'needs at least one email or phone number' },
    { row: 4, column: 'assignee', reason: 'no store with external id "NOPE" in this company' },
    { row: 4, column: 'consent_given_at', reason: 'is not an ISO 8601 date or time' },
  ]);
  const leads = await leadsOf(net.company.id);
  expect(leads.map((l) => l.name)).toEqual(['Ada Import', 'Old Lead']);
  const [ada, old] = leads;
  expect(ada).toMatchObject({ assignee_id: net.storeNorth.id, emails: 'ada.work@example.test;ada@example.test', notes: 1 });
  expect(ada.consents).toEqual([{ source: 'import', text: 'We may contact you.', version: 'v3', given_at: expect.stringMatching(/^2026-11-01T10:00:00/) }]);
  // The duplicate merged into the stored lead, with its consent (source import, given at the import).
  expect(old.consents).toEqual([expect.objectContaining({ source: 'import', text: 'Text only', version: 'v1' })]);
  const [entry] = await t.em().execute(`select action, details from audit_entries where company_id = ? and action = 'import.run'`, [net.company.id]);
  expect(entry.details).toMatchObject({ kind: 'leads', source: 'text', rows: 4, created: 1, updated: 1, invalid: 2 });
});

test('importLeads: a store user is FORBIDDEN, another company NOT_FOUND, a malformed file refused; nothing written', async () => {
  const net = await f.network(t.em());
  const other = await f.company(t.em());
  const otherAdmin = await f.userWithKey(t.em(), Role.CompanyAdmin, other);
  const store = await f.userWithKey(t.em(), Role.CompanySalesAssociate, net.company, { companyRetailerLocations: [net.storeNorth] });
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, net.company);
  const csv = 'name,email\nEve,eve@example.test\n';
  expect((await gql(t, store.key, IMPORT, { c: net.company.id, csv })).body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect((await gql(t, otherAdmin.key, IMPORT, { c: net.company.id, csv })).body.errors[0].extensions.code).toBe('NOT_FOUND');
  const bad = await gql(t, admin.key, IMPORT, { c: net.company.id, csv: 'name,email\nEve,"eve@example.test\n' });
  expect(bad.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^CSV: line 2: the file ends inside a quoted field/), extensions: { code: 'BAD_USER_INPUT' } });
  expect((await gql(t, admin.key, IMPORT, { c: net.company.id, csv: 'name,city\nEve,Paris\n' })).body.errors[0].message).toMatch(/^CSV: the header has no email or phone column/);
  const tooMany = await gql(t, admin.key, IMPORT, { c: net.company.id, csv: `name,email\n${',x\n'.repeat(10_001)}` });
  expect(tooMany.body.errors[0]).toMatchObject({ message: 'CSV: line 10002: a lead file has at most 10,000 rows; split it', extensions: { code: 'BAD_USER_INPUT' } });
  expect(await leadsOf(net.company.id)).toEqual([]);
});

test('leadnet import leads (the operator at the command line): --json report, exit 0, the consent recorded with source import', async () => {
  const brand = await f.company(t.em());
  const file = path.join(dir, 'leads.csv');
  fs.writeFileSync(file, 'name,phone,country,consent_text,consent_version\nZed Cli,+33 1 42 68 53 00,FR,Oui,2\n');
  const env = { DATABASE_URL: t.config.databaseUrl, GEOCODER: 'offline' };
  const ok = await runLeadnet(['import', 'leads', file, '--company', brand.id, '--json'], env);
  expect(ok).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(ok.stdout)).toMatchObject({ rows: 1, created: 1, invalid: 0, dry_run: false });
  const [lead] = await leadsOf(brand.id);
  expect(lead).toMatchObject({ name: 'Zed Cli', consents: [expect.objectContaining({ source: 'import', text: 'Oui' })] });
});
