// First-response timers and escalation (docs/response-times.md), with an injectable clock moved across a
// weekend and a DST change, breaches mailed to a real SMTP server.
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest } from '../support/leads';
import { locatorNetwork, store, type HoursSpec } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';
import { startSmtpReceiver } from '../notifications/smtp-receiver';
import { unsubscribeToken } from '../../src/modules/notifications/notification.token';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let now = new Date();
const clock = () => now;
let timers: ResponseTimeWorker;
let mailer: NotificationWorker;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await createTestApp({ SMTP_URL: smtp.url, NOTIFICATION_SECRET: 's'.repeat(40), NOTIFICATION_WORKER: 'false', GEOCODER: 'none' });
  timers = new ResponseTimeWorker(t.orm, { clock });
  mailer = new NotificationWorker(t.orm, t.config, { clock });
});
afterAll(async () => {
  await mailer.stop();
  await t.close();
  await smtp.close();
});

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);
const WEEKDAYS_9_TO_17: HoursSpec[] = (['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const).map((day) => ({ day }));

async function brand(settings: Record<string, unknown>) {
  const net = await locatorNetwork(em());
  const m = em();
  const territory = await f.territory(m, net.company, 'East');
  const storeA = await store(em(), net.companyRetailer, { latitude: 40.75, longitude: -73.99, hours: WEEKDAYS_9_TO_17, locationTimezone: 'America/New_York', name: 'Midtown' });
  const storeB = await store(em(), net.companyRetailer, { latitude: 40.7, longitude: -74.0, hours: WEEKDAYS_9_TO_17, locationTimezone: 'America/New_York', name: 'Downtown' });
  await sql(`update company_retailer_locations set territory_id = ? where id = ?`, [territory.id, storeA.id]);
  const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, net.company, { territory });
  const staff = await f.userWithKey(em(), Role.CompanyLocationUser, net.company, { companyRetailerLocations: [storeA] });
  const res = await gql(t, admin.key, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { firstResponseMinutes businessHours reassign } }', {
    input: settings,
  });
  expect(res.body.errors).toBeUndefined();
  return { net, storeA, storeB, admin, manager, staff };
}

/** A lead assigned to `storeId` at `at` (the assignment's time is the database's; the test places it). */
async function assignedAt(key: string, storeId: string, at: string, extra: Record<string, unknown> = {}) {
  const lead = await createLead(t, key, quoteRequest({ assignee_id: storeId, ...extra }));
  await sql(`update lead_response_timers set assigned_at = ?, first_assigned_at = ?, computed = false where lead_id = ?`, [at, at, lead.id]);
  return lead;
}

const timer = async (leadId: string) => (await sql(`select * from lead_response_timers where lead_id = ?`, [leadId]))[0];
const breaches = async (leadId: string) => sql(`select * from lead_events where lead_id = ? and type = 'lead.sla_breached'`, [leadId]);

describe('first-response timers', () => {
  test('4 business hours from a Friday afternoon before the spring DST change fall due Monday 11:00 EDT; a breach is an event and a mail', async () => {
    const b = await brand({ firstResponseMinutes: 240 });
    // Breach mails are opt-in: the admin and the manager chose them; another admin, who did not, gets none.
    for (const u of [b.admin, b.manager]) expect((await gql(t, u.key, 'mutation { updateNotificationPreferences(input: { slaBreached: IMMEDIATE }) { slaBreached } }')).body.errors).toBeUndefined();
    const silent = await f.userWithKey(em(), Role.CompanyAdmin, b.net.company);
    expect((await gql(t, silent.key, '{ notificationPreferences { slaBreached } }')).body.data.notificationPreferences.slaBreached).toBe('OFF');
    // Friday 2026-03-06 15:00 EST; clocks spring forward on Sunday 2026-03-08.
    const lead = await assignedAt(b.admin.key, b.storeA.id, '2026-03-06T20:00:00Z');
    now = new Date('2026-03-06T20:00:00Z');
    await timers.tick();
    expect(new Date((await timer(lead.id)).due_at).toISOString()).toBe('2026-03-09T15:00:00.000Z');

    // Saturday, Sunday, Monday 10:59 EDT: not yet.
    for (const at of ['2026-03-07T18:00:00Z', '2026-03-08T18:00:00Z', '2026-03-09T14:59:00Z']) {
      now = new Date(at);
      expect((await timers.tick()).breached).toBe(0);
    }
    expect(await breaches(lead.id)).toHaveLength(0);

    // Monday 11:00 EDT (15:00 UTC: one hour earlier in UTC than before the change).
    now = new Date('2026-03-09T15:00:00Z');
    await mailer.drain();
    smtp.received.length = 0;
    expect((await timers.tick()).breached).toBe(1);
    const [event] = await breaches(lead.id);
    expect(event.data).toMatchObject({ store_id: b.storeA.id, due_at: '2026-03-09T15:00:00.000Z', first_response_minutes: 240 });
    expect((await timers.tick()).breached).toBe(0);

    await mailer.drain();
    expect(smtp.received.flatMap((r) => r.to).sort()).toEqual([b.admin.user.email, b.manager.user.email].sort());
    const [mail] = smtp.to(b.admin.user.email);
    expect(mail.mail.subject).toMatch(/^Lead not answered in time: /);
    expect(mail.mail.text).toContain('Midtown did not answer this lead within its first-response time (due 2026-03-09 15:00 UTC)');
    // Its unsubscribe link turns off breach mails only.
    const link = /<([^>]+)>/.exec((mail.mail.headerLines as any[]).find((h) => h.key === 'list-unsubscribe').line)![1];
    expect(link).toContain('/notifications/unsubscribe?token=s1.');
    // The mail was sent at the test's clock (March), so its own link has expired by now: a fresh one of the same kind.
    const fresh = unsubscribeToken('s'.repeat(40), b.admin.user.id, new Date(), 'sla_breached');
    const done = await request(t.app).post('/notifications/unsubscribe').query({ token: fresh });
    expect(done.text).toContain('leads not answered in time');
    const prefs = await gql(t, b.admin.key, '{ notificationPreferences { leadAssigned slaBreached } }');
    expect(prefs.body.data.notificationPreferences).toEqual({ leadAssigned: 'OFF', slaBreached: 'OFF' });
    expect((await gql(t, b.manager.key, '{ notificationPreferences { slaBreached } }')).body.data.notificationPreferences.slaBreached).toBe('IMMEDIATE');
    // Not reassigned unless the company chose it.
    const show = await api(t, 'get', `/v1/leads/${lead.id}`, { key: b.admin.key });
    expect(show.body.assignee.id).toBe(b.storeA.id);
  });

  test('a status change or an activity after the assignment answers the lead; the create\'s own activities do not', async () => {
    const b = await brand({ firstResponseMinutes: 60, businessHours: false });
    const answered = await createLead(t, b.admin.key, quoteRequest({ assignee_id: b.storeA.id }));
    const ignored = await createLead(t, b.admin.key, quoteRequest({ assignee_id: b.storeA.id }));
    expect((await timer(answered.id)).answered_at).toBeNull();
    const res = await api(t, 'patch', `/v1/leads/${answered.id}`, { key: b.staff.key, body: { lead: { status: 'Contacted' } } });
    expect(res.status).toBe(200);
    expect((await timer(answered.id)).answered_at).not.toBeNull();
    now = new Date(Date.now() + 2 * 3_600_000);
    await timers.tick();
    expect(await breaches(answered.id)).toHaveLength(0);
    expect(await breaches(ignored.id)).toHaveLength(1);
  });

  test('when the company chose it, a breached lead goes to the next store by its routing rules, recorded as an Assignment with the reason; the timer restarts there', async () => {
    const b = await brand({ firstResponseMinutes: 240, reassign: true });
    const routing = await gql(t, b.admin.key, 'mutation { updateRoutingSettings(input: { strategies: [DeliveryArea] }) { enabled } }');
    expect(routing.body.errors).toBeUndefined();
    for (const s of [b.storeA, b.storeB]) await sql(`insert into delivery_areas (company_retailer_location_id, postal_code) values (?, '10001')`, [s.id]);
    // In both stores' delivery areas.
    const lead = await assignedAt(b.admin.key, b.storeA.id, '2026-11-20T20:00:00Z', { location: { city: 'New York', postal_code: '10001', country: 'US' } }); // Friday 15:00 EST
    now = new Date('2026-11-23T16:00:00Z'); // Monday 11:00 EST
    await timers.tick();
    const show = await api(t, 'get', `/v1/leads/${lead.id}?include=*`, { key: b.admin.key });
    expect(show.body.assignee.id).toBe(b.storeB.id);
    const assignment = show.body.lead_activities.find((a: any) => a.type === 'LeadActivity::Assignment' && a.data.reason === 'sla_breached');
    expect(assignment.data).toMatchObject({ from_id: b.storeA.id, to_id: b.storeB.id, reason: 'sla_breached', rule: 'delivery_area' });
    const restarted = await timer(lead.id);
    expect(restarted.store_id).toBe(b.storeB.id);
    expect(restarted.breached_at).toBeNull();
  });

  test('settings: company admins only; malformed values are BAD_USER_INPUT', async () => {
    const b = await brand({ firstResponseMinutes: 30 });
    const mutation = 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { firstResponseMinutes } }';
    for (const input of [{ firstResponseMinutes: 0 }, { firstResponseMinutes: -5 }, { firstResponseMinutes: 10_000_000 }, { firstResponseMinutes: 'soon' }, { reassign: null }, { businessHours: 'yes' }]) {
      const res = await gql(t, b.admin.key, mutation, { input });
      expect([input, res.body.errors?.[0]?.extensions?.code]).toEqual([input, 'BAD_USER_INPUT']);
    }
    expect((await gql(t, b.staff.key, mutation, { input: { firstResponseMinutes: 5 } })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await gql(t, b.admin.key, '{ responseTimeSettings { firstResponseMinutes businessHours reassign } }')).body.data.responseTimeSettings).toEqual({
      firstResponseMinutes: 30,
      businessHours: true,
      reassign: false,
    });
  });
});
