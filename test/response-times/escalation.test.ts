// Escalation of a first-response breach (docs/response-times.md): reassignment by the company's own routing
// rules, timers started by setting or changing the time, and the abuse cases (settings changed while the
// worker runs, a lead deleted or merged while its timer waits, a store deleted, a breach replayed by two
// workers). Driven through GraphQL and REST with the worker's injectable clock.
import { Client } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { locatorNetwork, north, store, type StoreSpec } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { DeliveryArea } from '../../src/modules/company-retailer-location/delivery-area.entity';
import { ResponseTimeWorker, RESPONSE_TIME_LOCK } from '../../src/modules/response-times/response-time.worker';

const MILE = 1609.344;
/** Every lead address the fake geocoder places is here. */
const ORIGIN = { latitude: 45, longitude: -100 };

let t: TestApp;
let now = new Date();
const clock = () => now;
let timers: ResponseTimeWorker;

beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
  withGeocoder({ geocode: async () => ORIGIN });
  timers = new ResponseTimeWorker(t.orm, { clock });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

async function brand() {
  const net = await locatorNetwork(em());
  const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  return { ...net, admin: admin.key };
}
type Brand = Awaited<ReturnType<typeof brand>>;

/** A store `miles` north of ORIGIN (where every lead is), with optional delivery areas and radius. */
async function storeAt(b: Brand, miles: number, extra: StoreSpec & { areas?: string[]; radius?: number } = {}) {
  const m = em();
  const crl = await store(m, b.companyRetailer, { ...north(ORIGIN, miles * MILE), ...extra });
  const row = await m.findOneOrFail(CompanyRetailerLocation, crl.id);
  if (extra.radius !== undefined) row.deliveryRadius = extra.radius;
  for (const postalCode of extra.areas ?? []) m.create(DeliveryArea, { companyRetailerLocation: row, postalCode, country: null });
  await m.flush();
  return crl;
}

async function settle(key: string, mutation: string, input: Record<string, unknown>) {
  const res = await gql(t, key, mutation, { input });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}
const sla = (b: Brand, input: Record<string, unknown>) =>
  settle(b.admin, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { firstResponseMinutes } }', input);
const routing = (b: Brand, input: Record<string, unknown>) =>
  settle(b.admin, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', input);

const at = { street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US' };
const leadAt = (b: Brand, storeId: string, extra: Record<string, unknown> = {}) => createLead(t, b.admin, quoteRequest({ assignee_id: storeId, location: at, ...extra }));

const timer = async (leadId: string) => (await sql(`select * from lead_response_timers where lead_id = ?`, [leadId]))[0];
const breachEvents = (leadId: string) => sql(`select data from lead_events where lead_id = ? and type = 'lead.sla_breached' order by seq`, [leadId]);

/** Places the lead's current timer in the past and runs the worker past its due time. */
async function overdue(leadId: string, worker = timers) {
  await sql(`update lead_response_timers set assigned_at = '2026-11-02T15:00:00Z', counted_from = null, computed = false where lead_id = ?`, [leadId]);
  now = new Date('2026-11-02T15:00:00Z');
  await worker.tick(); // the due time
  now = new Date('2026-11-02T16:01:00Z');
}

async function show(b: Brand, leadId: string) {
  const res = await api(t, 'get', `/v1/leads/${leadId}?include=*`, { key: b.admin });
  expect(res.status).toBe(200);
  return res.body;
}
const breachAssignments = (lead: any) => lead.lead_activities.filter((a: any) => a.type === 'LeadActivity::Assignment' && a.data.reason === 'sla_breached');

describe('reassignment after a breach follows the company\'s routing rules', () => {
  test('rule order, receiving flags and distance decide; stores the lead had, and another tenant\'s stores, are never chosen; with none left the lead stays and the event says so', async () => {
    const b = await brand();
    const other = await brand();
    const storeA = await storeAt(b, 1, { name: 'A' }); // has the lead
    await storeAt(b, 2, { name: 'B', receivingLeads: false }); // nearer than all, but takes no leads
    const storeC = await storeAt(b, 30, { name: 'C', areas: ['97205'] }); // the delivery-area rule comes first
    const storeD = await storeAt(b, 5, { name: 'D' }); // the nearest receiving store
    await storeAt(b, 80, { name: 'E' }); // beyond the nearest rule's 50 miles
    // Another company's store sits on the lead, lists its postal code and covers it by radius.
    await storeAt(other, 0, { name: 'X', areas: ['97205'], radius: 1000 });
    await routing(other, { enabled: true, strategies: ['DeliveryArea', 'DeliveryRadius'] });
    // New leads are not routed (enabled: false); the rules still decide where a breached lead goes.
    await routing(b, { enabled: false, strategies: ['DeliveryArea', 'Nearest'], nearestMaxDistanceMiles: 50 });
    await sla(b, { firstResponseMinutes: 60, businessHours: false, reassign: true });

    const lead = await leadAt(b, storeA.id);
    await overdue(lead.id);
    expect((await timers.tick()).breached).toBe(1);
    let body = await show(b, lead.id);
    expect(body.assignee.id).toBe(storeC.id);
    expect(breachAssignments(body).map((a: any) => a.data)).toEqual([
      { from_id: storeA.id, to_id: storeC.id, reason: 'sla_breached', rule: 'delivery_area', distance_miles: 30 },
    ]);
    expect((await breachEvents(lead.id))[0].data).toMatchObject({ store_id: storeA.id, reassignment: 'reassigned', reassigned_to_id: storeC.id });
    // The new store's timer runs from the reassignment.
    expect(await timer(lead.id)).toMatchObject({ store_id: storeC.id, breached_at: null });

    // C misses it too: no other delivery area, so the nearest rule: D (B takes no leads, A had it).
    await overdue(lead.id);
    expect((await timers.tick()).breached).toBe(1);
    body = await show(b, lead.id);
    expect(body.assignee.id).toBe(storeD.id);
    expect(breachAssignments(body).map((a: any) => a.data.to_id)).toEqual(expect.arrayContaining([storeC.id, storeD.id]));
    expect(breachAssignments(body).find((a: any) => a.data.to_id === storeD.id).data).toMatchObject({ from_id: storeC.id, rule: 'nearest', distance_miles: 5 });

    // D misses it: A, C and D had it, B takes none, E is too far, X is another company's: the lead stays.
    await overdue(lead.id);
    expect((await timers.tick()).breached).toBe(1);
    body = await show(b, lead.id);
    expect(body.assignee.id).toBe(storeD.id);
    expect(breachAssignments(body)).toHaveLength(2);
    const events = await breachEvents(lead.id);
    expect(events).toHaveLength(3);
    expect(events[2].data).toMatchObject({ store_id: storeD.id, reassignment: 'no_eligible_store', reassigned_to_id: null });
    expect((await timer(lead.id)).breached_at).not.toBeNull();
    // Breached once: later rounds leave it be.
    now = new Date('2026-11-09T16:00:00Z');
    expect((await timers.tick()).breached).toBe(0);
    expect(await breachEvents(lead.id)).toHaveLength(3);
  });

  test('without reassignment chosen the event says `off`; a lead of a company without routing rules that match stays', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    await storeAt(b, 3); // near, but the default rules (delivery area, radius) do not reach it
    await sla(b, { firstResponseMinutes: 60, businessHours: false });
    const kept = await leadAt(b, storeA.id);
    await overdue(kept.id);
    await timers.tick();
    expect((await breachEvents(kept.id))[0].data).toMatchObject({ reassignment: 'off', reassigned_to_id: null });

    await sla(b, { reassign: true });
    const unmatched = await leadAt(b, storeA.id);
    await overdue(unmatched.id);
    await timers.tick();
    expect((await show(b, unmatched.id)).assignee.id).toBe(storeA.id);
    expect((await breachEvents(unmatched.id))[0].data).toMatchObject({ reassignment: 'no_eligible_store' });
  });

  test('with nearestInTerritory the next store is in the lead\'s territory (its creator\'s, a territory manager), however near another is', async () => {
    const b = await brand();
    const m = em();
    const [east, west] = [await f.territory(m, b.company, 'East'), await f.territory(m, b.company, 'West')];
    const storeA = await storeAt(b, 1);
    const near = await storeAt(b, 2); // the nearest, in the other territory
    const far = await storeAt(b, 20);
    for (const [s, territory] of [[storeA, east], [near, west], [far, east]] as const) {
      await sql(`update company_retailer_locations set territory_id = ? where id = ?`, [territory.id, s.id]);
    }
    const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, b.company, { territory: east });
    await routing(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50, nearestInTerritory: true });
    await sla(b, { firstResponseMinutes: 60, businessHours: false, reassign: true });
    const lead = await createLead(t, manager.key, quoteRequest({ assignee_id: storeA.id, location: at }));
    await overdue(lead.id);
    await timers.tick();
    expect((await show(b, lead.id)).assignee.id).toBe(far.id);
  });
});

describe('setting or changing the first-response time', () => {
  test('starts timers from the change for open, unanswered, assigned leads, the old ones too; answered, closed and unassigned leads get none', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    const waiting = await leadAt(b, storeA.id); // assigned while the company had no time: a timer with no due time
    const old = await leadAt(b, storeA.id); // assigned before timers existed: no timer row at all
    await sql(`delete from lead_response_timers where lead_id = ?`, [old.id]);
    await sql(`update leads set created_at = '2026-10-01T10:00:00Z' where id = ?`, [old.id]);
    await sql(`update lead_events set occurred_at = '2026-10-01T10:00:00Z' where lead_id = ?`, [old.id]);
    // Answers come from the store's own users (docs/response-times.md).
    const storeUser = (await f.userWithKey(em(), Role.CompanyLocationUser, b.company, { companyRetailerLocations: [storeA] })).key;
    const answered = await leadAt(b, storeA.id);
    expect((await api(t, 'patch', `/v1/leads/${answered.id}`, { key: storeUser, body: { lead: { status: 'Contacted' } } })).status).toBe(200);
    const answeredOld = await leadAt(b, storeA.id);
    await sql(`delete from lead_response_timers where lead_id = ?`, [answeredOld.id]);
    await sql(`update leads set created_at = created_at - interval '1 day' where id = ?`, [answeredOld.id]);
    await sql(`update lead_events set occurred_at = occurred_at - interval '1 day' where lead_id = ?`, [answeredOld.id]);
    await api(t, 'patch', `/v1/leads/${answeredOld.id}`, { key: storeUser, body: { lead: { lead_activities: [{ type: 'LeadActivity::Note', data: { notes: 'called back' } }] } } });
    await sql(`delete from lead_response_timers where lead_id = ?`, [answeredOld.id]);
    const won = await leadAt(b, storeA.id, { status: 'Won' });
    await sql(`delete from lead_response_timers where lead_id = ?`, [won.id]);
    const unassigned = await createLead(t, b.admin, quoteRequest({ location: at }));
    expect((await timer(waiting.id)).due_at).toBeNull();

    const before = Date.now();
    await sla(b, { firstResponseMinutes: 60, businessHours: false });
    now = new Date();
    await timers.tick();
    for (const id of [waiting.id, old.id]) {
      const row = await timer(id);
      const due = new Date(row.due_at).getTime();
      // From the change, not from the assignment (which would be long overdue).
      expect(due).toBeGreaterThanOrEqual(before - 5_000 + 3_600_000);
      expect(due).toBeLessThanOrEqual(Date.now() + 3_600_000);
    }
    // The old lead's assignment time is kept for the statistics.
    expect(new Date((await timer(old.id)).assigned_at).toISOString()).toBe('2026-10-01T10:00:00.000Z');
    expect((await timer(answered.id)).answered_at).not.toBeNull();
    for (const id of [answeredOld.id, won.id, unassigned.id]) expect(await timer(id)).toBeUndefined();

    now = new Date(Date.now() + 61 * 60_000);
    await timers.tick();
    expect(await breachEvents(waiting.id)).toHaveLength(1);
    expect(await breachEvents(old.id)).toHaveLength(1);
    expect(await breachEvents(answered.id)).toHaveLength(0);
  });

  test('a change restarts waiting timers from the change; a change of `reassign` alone restarts nothing; turning the time off stops them', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    await sla(b, { firstResponseMinutes: 60, businessHours: false });
    const lead = await leadAt(b, storeA.id);
    await sql(`update lead_response_timers set assigned_at = now() - interval '50 minutes' where lead_id = ?`, [lead.id]);
    now = new Date();
    await timers.tick();
    const first = new Date((await timer(lead.id)).due_at).getTime();
    expect(first).toBeLessThan(Date.now() + 11 * 60_000);

    await sla(b, { firstResponseMinutes: 120 });
    await timers.tick();
    const second = new Date((await timer(lead.id)).due_at).getTime();
    expect(second).toBeGreaterThan(Date.now() + 115 * 60_000);

    await sla(b, { reassign: true });
    await timers.tick();
    expect(new Date((await timer(lead.id)).due_at).getTime()).toBe(second);

    await sla(b, { firstResponseMinutes: null });
    now = new Date(Date.now() + 30 * 24 * 3_600_000);
    await timers.tick();
    expect((await timer(lead.id)).due_at).toBeNull();
    expect(await breachEvents(lead.id)).toHaveLength(0);
  });

  test('the change is one transaction: a failure while starting timers leaves the settings and every timer as they were', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    await sla(b, { firstResponseMinutes: 60, businessHours: false });
    const lead = await leadAt(b, storeA.id);
    now = new Date();
    await timers.tick();
    const before = await timer(lead.id);
    const old = await leadAt(b, storeA.id);
    await sql(`delete from lead_response_timers where lead_id = ?`, [old.id]);
    // A failure injected when the old lead's timer is written, after the settings and the waiting timer were.
    await sql(`create function fail_timer() returns trigger language plpgsql as $$ begin
                 if new.lead_id = '${old.id}' then raise exception 'injected'; end if; return new; end $$`);
    await sql(`create trigger fail_timer before insert on lead_response_timers for each row execute function fail_timer()`);
    try {
      const res = await gql(t, b.admin, 'mutation { updateResponseTimeSettings(input: { firstResponseMinutes: 30 }) { firstResponseMinutes } }');
      expect(res.body.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
    } finally {
      await sql(`drop trigger fail_timer on lead_response_timers`);
      await sql(`drop function fail_timer()`);
    }
    expect((await gql(t, b.admin, '{ responseTimeSettings { firstResponseMinutes } }')).body.data.responseTimeSettings.firstResponseMinutes).toBe(60);
    expect(await timer(lead.id)).toEqual(before);
    expect(await timer(old.id)).toBeUndefined();
  });
});

describe('abuse cases', () => {
  test('a settings change while a worker round holds the lock waits for it, and the timers follow the change; racing changes and rounds agree at the end', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    await sla(b, { firstResponseMinutes: 60, businessHours: false });
    const leads = [await leadAt(b, storeA.id), await leadAt(b, storeA.id)];
    const worker = new Client({ connectionString: t.config.databaseUrl });
    await worker.connect();
    try {
      await worker.query('begin');
      await worker.query('select pg_advisory_xact_lock($1)', [RESPONSE_TIME_LOCK]); // a round in progress
      let done = false;
      const change = sla(b, { firstResponseMinutes: 240 }).then(() => (done = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(done).toBe(false);
      await worker.query('commit');
      await change;
    } finally {
      await worker.end();
    }
    now = new Date();
    await timers.tick();
    for (const lead of leads) {
      const row = await timer(lead.id);
      expect(new Date(row.due_at).getTime() - new Date(row.counted_from).getTime()).toBe(240 * 60_000);
    }

    // Rounds of two workers racing settings changes: at the end every waiting timer is due by the last one.
    const other = new ResponseTimeWorker(t.orm, { clock });
    for (const minutes of [30, 90, 45, 120]) {
      await Promise.all([timers.tick(), sla(b, { firstResponseMinutes: minutes }), other.tick()]);
    }
    await timers.tick();
    for (const lead of leads) {
      const row = await timer(lead.id);
      expect(row.computed).toBe(true);
      expect(new Date(row.due_at).getTime() - new Date(row.counted_from).getTime()).toBe(120 * 60_000);
      expect(row.breached_at).toBeNull();
    }
  });

  test('a breach replayed (two workers at once, rounds repeated) is one event and one reassignment', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    const storeB = await storeAt(b, 4);
    await storeAt(b, 8);
    await routing(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50 });
    await sla(b, { firstResponseMinutes: 60, businessHours: false, reassign: true });
    const lead = await leadAt(b, storeA.id);
    const second = new ResponseTimeWorker(t.orm, { clock });
    await overdue(lead.id);
    const results = await Promise.all([timers.tick(), second.tick(), timers.tick(), second.tick()]);
    expect(results.reduce((n, r) => n + r.breached, 0)).toBe(1);
    await Promise.all([timers.tick(), second.tick()]);
    expect(await breachEvents(lead.id)).toHaveLength(1);
    const body = await show(b, lead.id);
    expect(body.assignee.id).toBe(storeB.id);
    expect(breachAssignments(body)).toHaveLength(1);
    const assigned = await sql(`select count(*)::int as n from lead_events where lead_id = ? and type = 'lead.assigned'`, [lead.id]);
    expect(assigned[0].n).toBe(2); // the create's and the reassignment's
  });

  test('a breach waits, without blocking, while a create takes the company\'s round-robin turn', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    const storeB = await storeAt(b, 4);
    await routing(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50, roundRobin: true });
    await sla(b, { firstResponseMinutes: 60, businessHours: false, reassign: true });
    const lead = await leadAt(b, storeA.id);
    await overdue(lead.id);
    const creating = new Client({ connectionString: t.config.databaseUrl });
    await creating.connect();
    try {
      await creating.query('begin');
      await creating.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`routing:${b.company.id}`]);
      await timers.tick(); // returns: the worker never waits for the lock
      expect(await breachEvents(lead.id)).toHaveLength(0);
      await creating.query('commit');
    } finally {
      await creating.end();
    }
    await timers.tick();
    expect(await breachEvents(lead.id)).toHaveLength(1);
    expect((await show(b, lead.id)).assignee.id).toBe(storeB.id);
  });

  test('a lead deleted while its timer waits breaches nothing; a duplicate merged into it does not answer it, and one naming another store restarts it there', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    const storeC = await storeAt(b, 9);
    await sla(b, { firstResponseMinutes: 60, businessHours: false });

    const gone = await leadAt(b, storeA.id);
    await overdue(gone.id);
    expect((await api(t, 'delete', `/v1/leads/${gone.id}`, { key: b.admin })).status).toBe(204);
    expect((await timers.tick()).breached).toBe(0);
    expect(await breachEvents(gone.id)).toHaveLength(0);
    expect(await timer(gone.id)).toBeUndefined();

    const body = quoteRequest({ assignee_id: storeA.id, location: at });
    const kept = await createLead(t, b.admin, body);
    await overdue(kept.id);
    // The shopper submits again (same e-mail, no store named): merged into the lead, not an answer.
    const again = quoteRequest({ emails: body.lead.emails, location: at });
    const merged = await api(t, 'post', '/v1/leads', { key: b.admin, body: again });
    expect(merged.body.id).toBe(kept.id);
    expect((await timer(kept.id)).answered_at).toBeNull();
    expect((await timers.tick()).breached).toBe(1);
    expect(await breachEvents(kept.id)).toHaveLength(1);

    const movedBody = quoteRequest({ assignee_id: storeA.id, location: at });
    const moved = await createLead(t, b.admin, movedBody);
    await overdue(moved.id);
    await api(t, 'post', '/v1/leads', { key: b.admin, body: quoteRequest({ assignee_id: storeC.id, emails: movedBody.lead.emails }) });
    expect(await timer(moved.id)).toMatchObject({ store_id: storeC.id, computed: false, breached_at: null });
    expect((await timers.tick()).breached).toBe(0);
    expect(await breachEvents(moved.id)).toHaveLength(0);
  });

  test('a store deleted before a breach is never chosen; the store holding the lead cannot be deleted and its timer still breaches', async () => {
    const b = await brand();
    const storeA = await storeAt(b, 1);
    const storeD = await storeAt(b, 3);
    const storeF = await storeAt(b, 10);
    await routing(b, { strategies: ['Nearest'], nearestMaxDistanceMiles: 50 });
    await sla(b, { firstResponseMinutes: 60, businessHours: false, reassign: true });
    const lead = await leadAt(b, storeA.id);
    await overdue(lead.id);
    expect((await api(t, 'delete', `/v1/company_retailer_locations/${storeA.id}`, { key: b.admin })).status).toBe(422);
    expect((await api(t, 'delete', `/v1/company_retailer_locations/${storeD.id}`, { key: b.admin })).status).toBe(204);
    expect((await timers.tick()).breached).toBe(1);
    const body = await show(b, lead.id);
    expect(body.assignee.id).toBe(storeF.id);
    expect(breachAssignments(body)[0].data).toMatchObject({ from_id: storeA.id, to_id: storeF.id });
  });
});
