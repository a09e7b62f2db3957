// Retention (docs/personal-data.md "Retention"): a company's periods through GraphQL (company admins
// their own company, the operator any; everyone else FORBIDDEN, another company NOT_FOUND; bad values
// BAD_USER_INPUT; changes audited), the dry run (GraphQL and `leadnet personal-data retention
// --dry-run`) listing exactly what is due and changing nothing, and a run (the command line, then the
// leader's worker) erasing inactive leads through erasure jobs and deleting old delivery logs, leaving
// recent leads, leads with recent activity and another company (with its own periods) alone.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { world, type World } from '../support/network';
import * as f from '../support/factories';
import { runLeadnet } from '../support/cli';
import { Role } from '../../src/modules/user/role';
import { RetentionWorker } from '../../src/modules/personal-data/retention.worker';
import { reapplyLedger } from '../../src/modules/personal-data/personal-data.service';

let t: TestApp;
let w: World;
let url: string;

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

const SETTINGS = 'query($c: ID) { retentionSettings(companyId: $c) { companyId inactiveLeadMonths deliveryLogDays defaults } }';
const UPDATE = 'mutation($i: RetentionSettingsInput!) { updateRetentionSettings(input: $i) { companyId inactiveLeadMonths deliveryLogDays defaults } }';
const DRY_RUN =
  'query($c: ID, $first: Int) { retentionDryRun(companyId: $c, first: $first) { companyId leadIds webhookDeliveryIds notificationDeliveryIds visitorConfirmationIds truncated settings { inactiveLeadMonths deliveryLogDays } } }';

/** A lead of `key`'s company with an e-mail, last updated `monthsAgo` months ago. */
async function lead(key: string, name: string, monthsAgo: number): Promise<string> {
  const res = await api(t, 'post', '/v1/leads', { key, body: { lead: { name, emails: [{ email: `${name.toLowerCase().replace(/ /g, '.')}@retention.example` }] } } });
  expect(res.status).toBe(201);
  await sql(`update leads set updated_at = now() - make_interval(months => ?), created_at = now() - make_interval(months => ?) where id = ?`, [monthsAgo, monthsAgo, res.body.id]);
  await sql(`update lead_activities set created_at = now() - make_interval(months => ?), updated_at = now() - make_interval(months => ?) where lead_id = ?`, [monthsAgo, monthsAgo, res.body.id]);
  return res.body.id;
}

/** A delivered webhook, a sent mail and a visitor confirmation about the lead, `daysAgo` days old; their ids. */
async function logs(companyId: string, userId: string, leadId: string, daysAgo: number) {
  const [endpoint] = await sql(
    `insert into webhook_endpoints (owner_company_id, url, events, secret) values (?, 'https://partner.retention.example/hook', '{lead.created}', 'secret') returning id`,
    [companyId],
  );
  const [event] = await sql(`insert into lead_events (type, lead_id, owner_company_id, dispatched_at) values ('lead.updated', ?, ?, now()) returning id, seq`, [leadId, companyId]);
  const at = `now() - make_interval(days => ${daysAgo})`;
  const [hook] = await sql(`insert into webhook_deliveries (endpoint_id, event_id, event_seq, status, attempts, created_at) values (?, ?, ?, 'succeeded', 1, ${at}) returning id`, [endpoint.id, event.id, event.seq]);
  await sql(`insert into webhook_delivery_attempts (delivery_id, attempt, succeeded, response_code, duration_ms) values (?, 1, true, 200, 5)`, [hook.id]);
  const [mail] = await sql(`insert into notification_deliveries (kind, lead_id, user_id, lane, status, sent_at, created_at) values ('lead_assigned', ?, ?, ?, 'sent', ${at}, ${at}) returning id`, [
    leadId,
    userId,
    companyId,
  ]);
  const [confirmation] = await sql(`insert into visitor_confirmations (lead_id, email, locale, sent_at, created_at) values (?, 'visitor@retention.example', 'en', ${at}, ${at}) returning id`, [leadId]);
  return { hook: hook.id as string, mail: mail.id as string, confirmation: confirmation.id as string };
}

beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
  w = await world(em());
  url = t.config.databaseUrl!;
});
afterAll(async () => {
  await t.close();
});

test('who may read and change the periods, and what is refused', async () => {
  const admin = w.keys[Role.CompanyAdmin];
  for (const role of [Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerAdmin, Role.RetailerStoreManager]) {
    expect({ role, code: code(await gql(t, w.keys[role], SETTINGS)) }).toEqual({ role, code: 'FORBIDDEN' });
    expect({ role, code: code(await gql(t, w.keys[role], UPDATE, { i: { inactiveLeadMonths: 1 } })) }).toEqual({ role, code: 'FORBIDDEN' });
    expect({ role, code: code(await gql(t, w.keys[role], DRY_RUN)) }).toEqual({ role, code: 'FORBIDDEN' });
  }
  const other = (await f.userWithKey(em(), Role.CompanyAdmin, w.B)).key;
  expect(code(await gql(t, other, SETTINGS, { c: w.A.id }))).toBe('NOT_FOUND');
  expect(code(await gql(t, other, UPDATE, { i: { companyId: w.A.id, inactiveLeadMonths: 1 } }))).toBe('NOT_FOUND');
  expect(code(await gql(t, other, DRY_RUN, { c: w.A.id }))).toBe('NOT_FOUND');
  expect(code(await gql(t, admin, SETTINGS, { c: randomUUID() }))).toBe('NOT_FOUND');
  // Malformed: never a 5xx.
  for (const i of [{ inactiveLeadMonths: 0 }, { inactiveLeadMonths: 1201 }, { deliveryLogDays: 0 }, { deliveryLogDays: null }, { companyId: 'nope' }]) {
    const res = await gql(t, admin, UPDATE, { i });
    expect({ i, status: res.status, code: code(res) }).toEqual({ i, status: 200, code: 'BAD_USER_INPUT' });
  }
  expect(code(await gql(t, admin, DRY_RUN, { first: 0 }))).toBe('BAD_USER_INPUT');
  const op = w.keys[Role.PlatformOperator];
  expect(code(await gql(t, op, SETTINGS))).toBe('BAD_USER_INPUT');

  // The defaults, then a change (audited once; the same values again record nothing).
  expect((await gql(t, admin, SETTINGS)).body.data.retentionSettings).toEqual({ companyId: w.A.id, inactiveLeadMonths: null, deliveryLogDays: 90, defaults: true });
  const changed = await gql(t, admin, UPDATE, { i: { inactiveLeadMonths: 24, deliveryLogDays: 60 } });
  expect(changed.body.data.updateRetentionSettings).toEqual({ companyId: w.A.id, inactiveLeadMonths: 24, deliveryLogDays: 60, defaults: false });
  await gql(t, admin, UPDATE, { i: { inactiveLeadMonths: 24 } });
  const entries = await sql(`select details, actor_type from audit_entries where chain_id = ? and action = 'settings.retention_changed'`, [w.A.id]);
  expect(entries).toEqual([{ actor_type: 'user', details: { deliveryLogDays: { from: 90, to: 60 }, inactiveLeadMonths: { from: null, to: 24 } } }]);
  // The operator names any company; B keeps its leads (null), which A's settings do not touch.
  const byOp = await gql(t, op, UPDATE, { i: { companyId: w.B.id, inactiveLeadMonths: null, deliveryLogDays: 30 } });
  expect(byOp.body.data.updateRetentionSettings).toEqual({ companyId: w.B.id, inactiveLeadMonths: null, deliveryLogDays: 30, defaults: false });
  expect((await gql(t, op, SETTINGS, { c: w.A.id })).body.data.retentionSettings).toMatchObject({ inactiveLeadMonths: 24, deliveryLogDays: 60 });
});

test('the dry run lists what is due and changes nothing; a run erases inactive leads through the erasure path and deletes old logs', async () => {
  const admin = w.keys[Role.CompanyAdmin];
  const adminB = (await f.userWithKey(em(), Role.CompanyAdmin, w.B)).key;
  await gql(t, admin, UPDATE, { i: { inactiveLeadMonths: 24, deliveryLogDays: 60 } });
  await gql(t, w.keys[Role.PlatformOperator], UPDATE, { i: { companyId: w.B.id, inactiveLeadMonths: null, deliveryLogDays: 30 } });
  const stale = await lead(admin, 'Stella Stale', 30);
  const fresh = await lead(admin, 'Fred Fresh', 1);
  const busy = await lead(admin, 'Bea Busy', 30);
  await sql(`insert into lead_activities (lead_id, type, data, owner_company_id) values (?, 'LeadActivity::Note', '{"notes": "still talking"}', ?)`, [busy, w.A.id]);
  const keptB = await lead(adminB, 'Bert Bolt', 30);
  const oldLogs = await logs(w.A.id, w.users[Role.CompanyAdmin].user.id, fresh, 70);
  const newLogs = await logs(w.A.id, w.users[Role.CompanyAdmin].user.id, fresh, 10);
  const userB = (await f.userWithKey(em(), Role.CompanyAdmin, w.B)).user.id;
  const logsB = await logs(w.B.id, userB, keptB, 20);

  const dry = (await gql(t, admin, DRY_RUN)).body.data.retentionDryRun;
  expect(dry).toEqual({
    companyId: w.A.id,
    leadIds: [stale],
    webhookDeliveryIds: [oldLogs.hook],
    notificationDeliveryIds: [oldLogs.mail],
    visitorConfirmationIds: [oldLogs.confirmation],
    truncated: false,
    settings: { inactiveLeadMonths: 24, deliveryLogDays: 60 },
  });
  const cli = await runLeadnet(['personal-data', 'retention', '--dry-run', '--company', w.A.id, '--json'], { DATABASE_URL: url });
  expect(cli.code).toBe(0);
  expect(JSON.parse(cli.stdout)).toMatchObject({ lead_ids: [stale], webhook_delivery_ids: [oldLogs.hook], notification_delivery_ids: [oldLogs.mail], visitor_confirmation_ids: [oldLogs.confirmation] });
  // Nothing changed.
  expect(await sql(`select name from leads where id = ?`, [stale])).toEqual([{ name: 'Stella Stale' }]);
  expect(await sql(`select 1 from webhook_deliveries where id = ?`, [oldLogs.hook])).toHaveLength(1);
  expect(await sql(`select 1 from erasure_jobs where company_id = ?`, [w.A.id])).toHaveLength(0);
  // B keeps leads: its stale lead is not due; its 20-day-old logs are not due under 30 days.
  expect((await gql(t, adminB, DRY_RUN)).body.data.retentionDryRun).toMatchObject({ leadIds: [], webhookDeliveryIds: [], notificationDeliveryIds: [], visitorConfirmationIds: [] });

  // The run, over every company.
  const run = await runLeadnet(['personal-data', 'retention', '--json'], { DATABASE_URL: url });
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout).runs).toContainEqual({ company_id: w.A.id, leads: 1, webhook_deliveries: 1, notification_deliveries: 1, visitor_confirmations: 1, more: false });
  // The stale lead went the erasure's way: name, e-mail, activity text, a lead.erased event, a job and a ledger entry of ids only.
  expect(await sql(`select name, erased_at is not null as erased from leads where id = ?`, [stale])).toEqual([{ name: null, erased: true }]);
  expect(await sql(`select 1 from emails where lead_id = ?`, [stale])).toHaveLength(0);
  expect(await sql(`select 1 from lead_events where lead_id = ? and type = 'lead.erased'`, [stale])).toHaveLength(1);
  const [job] = await sql(`select id, selector, status, lead_ids from erasure_jobs where company_id = ?`, [w.A.id]);
  expect(job).toMatchObject({ selector: 'retention', status: 'done', lead_ids: [stale] });
  expect(await sql(`select lead_ids, email_hashes, phone_hashes from erasure_ledger where job_id = ?`, [job.id])).toEqual([{ lead_ids: [stale], email_hashes: [], phone_hashes: [] }]);
  const audited = await sql(`select action, actor_type, details from audit_entries where chain_id = ? and action in ('person.erased', 'retention.applied') order by seq`, [w.A.id]);
  expect(audited).toEqual([
    { action: 'person.erased', actor_type: 'operator', details: { leads: 1, selector: 'retention' } },
    { action: 'retention.applied', actor_type: 'operator', details: { leads: 1, notification_deliveries: 1, visitor_confirmations: 1, webhook_deliveries: 1 } },
  ]);
  // The rest stays: recent leads, a lead with recent activity, new logs, the other company.
  expect(await sql(`select name from leads where id = any(?::uuid[]) order by name`, [`{${fresh},${busy},${keptB}}`])).toEqual([{ name: 'Bea Busy' }, { name: 'Bert Bolt' }, { name: 'Fred Fresh' }]);
  expect(await sql(`select 1 from webhook_deliveries where id = any(?::uuid[])`, [`{${newLogs.hook},${logsB.hook}}`])).toHaveLength(2);
  expect(await sql(`select 1 from webhook_delivery_attempts where delivery_id = ?`, [oldLogs.hook])).toHaveLength(0);
  expect(await sql(`select 1 from notification_deliveries where id = any(?::uuid[])`, [`{${oldLogs.mail},${newLogs.mail},${logsB.mail}}`])).toHaveLength(2);
  expect(await sql(`select 1 from visitor_confirmations where id = any(?::uuid[])`, [`{${oldLogs.confirmation},${newLogs.confirmation},${logsB.confirmation}}`])).toHaveLength(2);
  expect(await sql(`select 1 from erasure_jobs where company_id = ?`, [w.B.id])).toHaveLength(0);
  // Re-applied after a restore (here: an entry of ids only this database has not applied), a retention
  // entry erases its leads by id and its new ledger entry holds no hashes either.
  const restored = await lead(admin, 'Rhea Restored', 30);
  const again = randomUUID();
  expect(await reapplyLedger(em(), [{ job_id: again, company_id: w.A.id, lead_ids: [restored], email_hashes: [], phone_hashes: [], erased_at: new Date().toISOString() }], null)).toEqual({ reapplied: 1, skipped: 0, leads: 1 });
  expect(await sql(`select name from leads where id = ?`, [restored])).toEqual([{ name: null }]);
  expect(await sql(`select email_hashes, phone_hashes from erasure_ledger where job_id = ?`, [again])).toEqual([{ email_hashes: [], phone_hashes: [] }]);
  // Nothing is due any more: the erased lead is not found again.
  expect((await gql(t, admin, DRY_RUN)).body.data.retentionDryRun).toMatchObject({ leadIds: [], webhookDeliveryIds: [], notificationDeliveryIds: [], visitorConfirmationIds: [] });

  // The leader's worker does the same in the background (here one round), with the system as actor.
  const later = await lead(admin, 'Lara Later', 25);
  expect(await new RetentionWorker(t.orm).tick()).toBeGreaterThanOrEqual(1);
  expect(await sql(`select name from leads where id = ?`, [later])).toEqual([{ name: null }]);
  const [entry] = await sql(`select actor_type, actor_id from audit_entries where chain_id = ? and action = 'retention.applied' order by seq desc limit 1`, [w.A.id]);
  expect(entry).toEqual({ actor_type: 'system', actor_id: 'retention' });
  expect(await sql(`select name from leads where id = ?`, [keptB])).toEqual([{ name: 'Bert Bolt' }]);
});
