// Offers (docs/lead-loop.md): every assignment of a lead to a store is an offer the store accepts or
// declines, over REST and GraphQL, by the store's users and their API keys; hand-over to the next store
// by the company's routing rules on decline and on lapse (the worker driven with a clock); escalation
// after the company's maximum hand-overs; the outbox's events in order; the first-response timer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { locatorNetwork, north, store, type StoreSpec } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { LeadOfferWorker } from '../../src/modules/response-times/offer-lapse.worker';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';
import type { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';

const MILE = 1609.344;
/** Every lead address the fake geocoder places is here. */
const ORIGIN = { latitude: 45, longitude: -100 };

let t: TestApp;
let now = new Date();
const clock = () => now;
let offers: LeadOfferWorker;
let timers: ResponseTimeWorker;

beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
  withGeocoder({ geocode: async () => ORIGIN });
  offers = new LeadOfferWorker(t.orm, { clock });
  timers = new ResponseTimeWorker(t.orm, { clock });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await t.close();
});

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

/** A brand with its admin, routing by nearest store (new leads are not routed: they name their store). */
async function brand(settings: Record<string, unknown> = {}) {
  const net = await locatorNetwork(em());
  const admin = (await f.userWithKey(em(), Role.CompanyAdmin, net.company)).key;
  const b = { ...net, admin };
  await settle(b, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', {
    enabled: false,
    strategies: ['Nearest'],
    nearestMaxDistanceMiles: 500,
  });
  if (Object.keys(settings).length) await responseSettings(b, settings);
  return b;
}
type Brand = Awaited<ReturnType<typeof brand>>;

async function settle(b: Brand | { admin: string }, mutation: string, input: Record<string, unknown>) {
  const res = await gql(t, b.admin, mutation, { input });
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}
const responseSettings = (b: Brand | { admin: string }, input: Record<string, unknown>) =>
  settle(b, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { acceptMinutes maxHandovers } }', input);

/** A store `miles` north of ORIGIN with a location user (and its key). */
async function storeAt(b: Brand, miles: number, extra: StoreSpec = {}) {
  const crl = await store(em(), b.companyRetailer, { ...north(ORIGIN, miles * MILE), ...extra });
  const user = (await f.userWithKey(em(), Role.CompanyLocationUser, b.company, { companyRetailerLocations: [crl] })).key;
  return { crl, id: crl.id, user };
}
type Store = Awaited<ReturnType<typeof storeAt>>;

const at = { street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US' };
const leadAt = (b: Brand, s: Store | CompanyRetailerLocation) => createLead(t, b.admin, quoteRequest({ assignee_id: s.id, location: at }));

const accept = (key: string, leadId: string, headers: Record<string, string> = {}) => api(t, 'post', `/v1/leads/${leadId}/accept`, { key, headers });
const decline = (key: string, leadId: string, body: Record<string, unknown> = { reason: 'too_far' }) =>
  api(t, 'post', `/v1/leads/${leadId}/decline`, { key, body });

const offerRows = (leadId: string) =>
  sql(`select store_id, state, handovers, decline_reason, decline_note, answered_by_id, respond_by from lead_offers where lead_id = ? order by offered_at, answered_at nulls last`, [leadId]);
const events = async (leadId: string) =>
  (await sql(`select type, data from lead_events where lead_id = ? order by seq`, [leadId])) as Array<{ type: string; data: any }>;
const loopEvents = async (leadId: string) =>
  (await events(leadId)).filter((e) => ['lead.assigned', 'lead.offered', 'lead.accepted', 'lead.declined', 'lead.offer_expired'].includes(e.type));

async function assigneeOf(leadId: string): Promise<string | null> {
  const [row] = await sql(`select assignee_id from leads where id = ?`, [leadId]);
  return row.assignee_id;
}

const OFFER = `offer { storeId state offeredAt respondBy answeredAt declineReason declineNote handovers }`;

describe('accept and decline', () => {
  test('the store user accepts over REST: 200 with the lead, the offer accepted, lead.accepted and the activity; again 409', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a);
    expect(await offerRows(lead.id)).toMatchObject([{ store_id: a.id, state: 'open', handovers: 0 }]);

    const res = await accept(a.user, lead.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: lead.id, assignee: { id: a.id } });
    expect(res.body.lead_activities.map((x: any) => x.type)).toContain('LeadActivity::OfferAccepted');
    expect(await offerRows(lead.id)).toMatchObject([{ store_id: a.id, state: 'accepted' }]);

    const again = await accept(a.user, lead.id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, error: 'Conflict', errors: { offer: [expect.any(String)] }, details: [{ field: 'offer', code: 'accepted' }] });
    // Declining an accepted offer is a conflict too.
    expect((await decline(a.user, lead.id)).status).toBe(409);

    const types = (await events(lead.id)).map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['lead.created', 'lead.assigned', 'lead.offered']);
    const accepted = (await events(lead.id)).find((e) => e.type === 'lead.accepted')!;
    expect(accepted.data).toMatchObject({ store_id: a.id, offer_id: expect.any(String), user_id: expect.any(String) });
  });

  test('GraphQL acceptLead and declineLead with the offer on the lead; a retailer admin answers for its store by its API key', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 3);
    const lead = await leadAt(b, a);
    const retailerAdmin = (await f.userWithKey(em(), Role.RetailerAdmin, b.retailer)).key;

    const declined = await gql(t, retailerAdmin, `mutation($id: ID!) { declineLead(id: $id, reason: OTHER, note: "closed for stock-taking") { id assigneeId ${OFFER} } }`, {
      id: lead.id,
    });
    expect(declined.body.errors).toBeUndefined();
    // The retailer admin sees the next store too (same retailer): the lead as it is now, offered to c.
    expect(declined.body.data.declineLead).toMatchObject({ assigneeId: c.id, offer: { storeId: c.id, state: 'OPEN', handovers: 1, declineReason: null } });

    const accepted = await gql(t, c.user, `mutation($id: ID!) { acceptLead(id: $id) { id ${OFFER} } }`, { id: lead.id });
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data.acceptLead.offer).toMatchObject({ storeId: c.id, state: 'ACCEPTED', answeredAt: expect.any(String) });

    const again = await gql(t, c.user, `mutation($id: ID!) { acceptLead(id: $id) { id } }`, { id: lead.id });
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT' });
    expect(await offerRows(lead.id)).toMatchObject([
      { store_id: a.id, state: 'declined', decline_reason: 'other', decline_note: 'closed for stock-taking' },
      { store_id: c.id, state: 'accepted', handovers: 1 },
    ]);
  });

  test('404 out of scope, 403 visible but not the store\'s user, 409 for a store whose offer is not the open one, 422 on the body', async () => {
    const b = await brand();
    const other = await brand();
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    const lead = await leadAt(b, a);

    // Another store's user does not see the lead; another brand's admin neither.
    expect((await accept(c.user, lead.id)).status).toBe(404);
    expect((await accept(other.admin, lead.id)).status).toBe(404);
    expect((await accept(a.user, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // The company admin sees it but answers for no store; nor does a territory manager.
    expect((await accept(b.admin, lead.id)).status).toBe(403);
    expect((await decline(b.admin, lead.id)).status).toBe(403);
    // The body is checked first.
    const bad = await decline(a.user, lead.id, { reason: 'bored' });
    expect(bad.status).toBe(422);
    expect(bad.body.details).toMatchObject([{ field: 'reason', code: 'inclusion' }]);
    expect((await decline(a.user, lead.id, {})).body.details).toMatchObject([{ field: 'reason', code: 'blank' }]);
    expect((await decline(a.user, lead.id, { reason: 'other' })).body.details).toMatchObject([{ field: 'note', code: 'blank' }]);
    expect((await decline(a.user, lead.id, { reason: 'duplicate', note: 'x'.repeat(501) })).body.details).toMatchObject([{ field: 'note', code: 'too_long' }]);
    // A client cannot write the system's activity types.
    const forged = await api(t, 'post', '/v1/lead_activities', { key: a.user, body: { lead_activity: { lead_id: lead.id, type: 'LeadActivity::OfferAccepted' } } });
    expect(forged.status).toBe(422);
    expect(forged.body.details).toMatchObject([{ field: 'type', code: 'invalid' }]);

    // A creator who is a user of a store the lead left still sees it (it created it): its offer was withdrawn.
    const creator = a.user;
    const mine = await createLead(t, creator, quoteRequest({ assignee_id: a.id, location: at }));
    await api(t, 'patch', `/v1/leads/${mine.id}`, { key: b.admin, body: { lead: { assignee_id: c.id } } });
    const withdrawn = await accept(creator, mine.id);
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.details).toMatchObject([{ field: 'offer', code: 'withdrawn' }]);
    expect(await offerRows(mine.id)).toMatchObject([{ store_id: a.id, state: 'withdrawn' }, { store_id: c.id, state: 'open' }]);
    expect((await accept(c.user, mine.id)).status).toBe(200);
  });

  test('two accepts at once: exactly one 200 and one 409, no 5xx; accept and decline at once too', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    await storeAt(b, 2);
    const second = (await f.userWithKey(em(), Role.CompanySalesAssociate, b.company, { companyRetailerLocations: [a.crl] })).key;
    for (let round = 0; round < 3; round++) {
      const lead = await leadAt(b, a);
      const answers = await Promise.all([accept(a.user, lead.id), accept(second, lead.id)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect((await offerRows(lead.id)).filter((o: any) => o.state === 'accepted')).toHaveLength(1);
      expect((await events(lead.id)).filter((e) => e.type === 'lead.accepted')).toHaveLength(1);

      const other = await leadAt(b, a);
      const mixed = await Promise.all([accept(a.user, other.id), decline(second, other.id)]);
      expect(mixed.map((r) => r.status).sort()).toEqual([200, 409]);
    }
  });

  test('a decline racing a reassignment by the admin: no 5xx, one open offer at the end, at the store the lead is at', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    const d = await storeAt(b, 3);
    for (let round = 0; round < 4; round++) {
      const lead = await leadAt(b, a);
      const [declined, moved] = await Promise.all([
        decline(a.user, lead.id, { reason: 'too_far' }),
        api(t, 'patch', `/v1/leads/${lead.id}`, { key: b.admin, body: { lead: { assignee_id: d.id } } }),
      ]);
      expect([200, 404, 409]).toContain(declined.status);
      expect(moved.status).toBe(200);
      const open = (await offerRows(lead.id)).filter((o: any) => o.state === 'open');
      expect(open).toHaveLength(1);
      expect(open[0].store_id).toBe(await assigneeOf(lead.id));
      expect([c.id, d.id]).toContain(open[0].store_id);
    }
  });

  test('with an Idempotency-Key an accept sent again replays its answer, and does not answer twice', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a);
    const first = await accept(a.user, lead.id, { 'Idempotency-Key': `accept-${lead.id}` });
    const again = await accept(a.user, lead.id, { 'Idempotency-Key': `accept-${lead.id}` });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await events(lead.id)).filter((e) => e.type === 'lead.accepted')).toHaveLength(1);
  });

  test('accepting answers the first-response timer; declining hands it to the next store, whose timer starts', async () => {
    const b = await brand({ firstResponseMinutes: 60, businessHours: false });
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    const lead = await leadAt(b, a);
    const timer = async () => (await sql(`select store_id, answered_at from lead_response_timers where lead_id = ?`, [lead.id]))[0];
    expect(await timer()).toMatchObject({ store_id: a.id, answered_at: null });
    expect((await decline(a.user, lead.id, { reason: 'no_capacity' })).status).toBe(200);
    expect(await timer()).toMatchObject({ store_id: c.id, answered_at: null });
    expect((await accept(c.user, lead.id)).status).toBe(200);
    expect((await timer()).answered_at).not.toBeNull();
  });
});

describe('hand-over', () => {
  test('a decline hands the lead to the nearest eligible store, never back to one it had; the events tell it in order', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    await storeAt(b, 3, { receivingLeads: false });
    const d = await storeAt(b, 4);
    const lead = await leadAt(b, a);

    const res = await decline(a.user, lead.id, { reason: 'out_of_stock', note: 'none left' });
    expect(res.status).toBe(200);
    // The declining store no longer sees the lead: the answer is the lead as it saw it.
    expect(res.body).toMatchObject({ id: lead.id, assignee: { id: a.id } });
    expect(await assigneeOf(lead.id)).toBe(c.id);
    expect((await api(t, 'get', `/v1/leads/${lead.id}`, { key: a.user })).status).toBe(404);

    expect((await decline(c.user, lead.id, { reason: 'too_far' })).status).toBe(200);
    expect(await assigneeOf(lead.id)).toBe(d.id); // a (declined) and the store taking no leads are skipped

    const loop = await loopEvents(lead.id);
    const offers1 = loop.filter((e) => e.type === 'lead.offered').map((e) => e.data.store_id);
    expect(offers1).toEqual([a.id, c.id, d.id]);
    expect(loop.map((e) => e.type)).toEqual([
      'lead.assigned', 'lead.offered',
      'lead.declined', 'lead.assigned', 'lead.offered',
      'lead.declined', 'lead.assigned', 'lead.offered',
    ]);
    expect(loop[2].data).toMatchObject({ store_id: a.id, reason: 'out_of_stock', note: 'none left', next_store_id: c.id, escalation: null });
    const show = await api(t, 'get', `/v1/leads/${lead.id}?include=*`, { key: b.admin });
    const handovers = show.body.lead_activities.filter((x: any) => x.type === 'LeadActivity::Assignment' && x.data.reason === 'declined');
    expect(handovers.map((x: any) => [x.data.from_id, x.data.to_id])).toEqual(expect.arrayContaining([[a.id, c.id], [c.id, d.id]]));
  });

  test('after max hand-overs, or with no eligible store, the lead is escalated: it stays with no open offer', async () => {
    const b = await brand({ maxHandovers: 1 });
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    await storeAt(b, 3);
    const lead = await leadAt(b, a);
    expect((await decline(a.user, lead.id)).status).toBe(200);
    expect(await assigneeOf(lead.id)).toBe(c.id);
    const res = await decline(c.user, lead.id);
    expect(res.status).toBe(200);
    expect(await assigneeOf(lead.id)).toBe(c.id);
    expect(await offerRows(lead.id)).toMatchObject([{ state: 'declined' }, { state: 'declined', handovers: 1 }]);
    const last = (await loopEvents(lead.id)).at(-1)!;
    expect(last).toMatchObject({ type: 'lead.declined', data: { next_store_id: null, escalation: 'max_handovers' } });
    expect((await accept(c.user, lead.id)).status).toBe(409);

    // A brand with one store: nowhere to go.
    const lone = await brand();
    const only = await storeAt(lone, 1);
    const alone = await leadAt(lone, only);
    expect((await decline(only.user, alone.id)).status).toBe(200);
    expect((await loopEvents(alone.id)).at(-1)).toMatchObject({ type: 'lead.declined', data: { escalation: 'no_eligible_store' } });
  });

  test('an escalated lead whose first-response time passes is recorded as breached but stays where it is (escalated), even with reassignment on', async () => {
    const b = await brand({ maxHandovers: 0, acceptMinutes: 60, firstResponseMinutes: 120, businessHours: false, reassign: true });
    const a = await storeAt(b, 1);
    await storeAt(b, 2);
    const lead = await leadAt(b, a);
    now = new Date();
    await offers.tick();
    await timers.tick();
    // Not accepted in time, no hand-over left: escalated, it stays at a, unanswered.
    now = new Date(Date.now() + 90 * 60_000);
    expect((await offers.tick()).expired).toBe(1);
    expect((await loopEvents(lead.id)).at(-1)).toMatchObject({ type: 'lead.offer_expired', data: { escalation: 'max_handovers' } });
    now = new Date(Date.now() + 3 * 3_600_000);
    expect((await timers.tick()).breached).toBe(1);
    expect(await assigneeOf(lead.id)).toBe(a.id);
    const [breach] = await sql(`select data from lead_events where lead_id = ? and type = 'lead.sla_breached'`, [lead.id]);
    expect(breach.data).toMatchObject({ store_id: a.id, reassignment: 'escalated', reassigned_to_id: null });
    now = new Date();
  });
});

describe('lapse', () => {
  const WEEKDAYS: StoreSpec['hours'] = (['monday', 'tuesday', 'wednesday', 'thursday', 'friday'] as const).map((day) => ({ day }));

  /** The lead's open offer offered at `iso` and its window computed again, the worker's clock at `iso`. */
  async function offeredAt(leadId: string, iso: string) {
    await sql(`update lead_offers set offered_at = ?, counted_from = null, computed = false, respond_by = null where lead_id = ? and state = 'open'`, [iso, leadId]);
    now = new Date(iso);
    await offers.tick();
  }
  const respondBy = async (leadId: string) => {
    const [row] = await sql(`select respond_by from lead_offers where lead_id = ? and state = 'open'`, [leadId]);
    return row?.respond_by ? new Date(row.respond_by).toISOString() : null;
  };

  test('the acceptance window counts the store\'s business hours; past it the offer expires and the lead goes to the next store, in order in the outbox', async () => {
    const b = await brand({ acceptMinutes: 120 });
    const a = await storeAt(b, 1, { hours: WEEKDAYS, locationTimezone: 'America/New_York' });
    const c = await storeAt(b, 2, { hours: WEEKDAYS, locationTimezone: 'America/New_York' });
    const lead = await leadAt(b, a);
    // Friday 2026-11-06 16:00 EST: one hour left today, one on Monday: 10:00 EST = 15:00 UTC.
    await offeredAt(lead.id, '2026-11-06T21:00:00Z');
    expect(await respondBy(lead.id)).toBe('2026-11-09T15:00:00.000Z');
    const gqlOffer = await gql(t, a.user, `query($id: ID!) { lead(id: $id) { ${OFFER} } }`, { id: lead.id });
    expect(gqlOffer.body.data.lead.offer).toMatchObject({ storeId: a.id, state: 'OPEN', respondBy: '2026-11-09T15:00:00.000Z' });

    for (const at of ['2026-11-07T18:00:00Z', '2026-11-09T14:59:00Z']) {
      now = new Date(at);
      expect((await offers.tick()).expired).toBe(0);
    }
    now = new Date('2026-11-09T15:00:00Z');
    expect((await offers.tick()).expired).toBe(1);
    expect((await offers.tick()).expired).toBe(0); // once
    expect(await assigneeOf(lead.id)).toBe(c.id);
    expect(await offerRows(lead.id)).toMatchObject([{ store_id: a.id, state: 'expired' }, { store_id: c.id, state: 'open', handovers: 1 }]);
    expect((await loopEvents(lead.id)).map((e) => e.type)).toEqual(['lead.assigned', 'lead.offered', 'lead.offer_expired', 'lead.assigned', 'lead.offered']);
    expect((await loopEvents(lead.id))[2].data).toMatchObject({ store_id: a.id, respond_by: '2026-11-09T15:00:00.000Z', next_store_id: c.id, escalation: null });
    const show = await api(t, 'get', `/v1/leads/${lead.id}?include=*`, { key: b.admin });
    const types = show.body.lead_activities.map((x: any) => [x.type, x.data?.reason]);
    expect(types).toEqual(expect.arrayContaining([['LeadActivity::OfferExpired', undefined], ['LeadActivity::Assignment', 'offer_expired']]));
    // The lapsed store may not answer any more: it no longer sees the lead.
    expect((await accept(a.user, lead.id)).status).toBe(404);

    // C lets it lapse too; A had it: with no other store it is escalated and stays at C.
    await offeredAt(lead.id, '2026-11-10T14:00:00Z');
    now = new Date('2026-11-10T16:00:00Z');
    expect((await offers.tick()).expired).toBe(1);
    expect(await assigneeOf(lead.id)).toBe(c.id);
    expect((await loopEvents(lead.id)).at(-1)).toMatchObject({ type: 'lead.offer_expired', data: { next_store_id: null, escalation: 'no_eligible_store' } });
    expect(await offerRows(lead.id)).toMatchObject([{ state: 'expired' }, { state: 'expired' }]);
  });

  test('two workers at once expire an offer once and hand the lead over once; an accept racing the lapse: one of them', async () => {
    const b = await brand({ acceptMinutes: 60, businessHours: false });
    const a = await storeAt(b, 1);
    await storeAt(b, 2);
    await storeAt(b, 3);
    const second = new LeadOfferWorker(t.orm, { clock });
    const lead = await leadAt(b, a);
    await offeredAt(lead.id, '2026-11-02T15:00:00Z');
    now = new Date('2026-11-02T16:00:00Z');
    const [x, y] = await Promise.all([offers.tick(), second.tick()]);
    expect(x.expired + y.expired).toBe(1);
    expect((await loopEvents(lead.id)).filter((e) => e.type === 'lead.offer_expired')).toHaveLength(1);
    expect((await offerRows(lead.id)).map((o: any) => o.state)).toEqual(['expired', 'open']);

    const raced = await leadAt(b, a);
    await offeredAt(raced.id, '2026-11-02T15:00:00Z');
    now = new Date('2026-11-02T16:00:00Z');
    const [answer] = await Promise.all([accept(a.user, raced.id), offers.tick()]);
    const states = (await offerRows(raced.id)).map((o: any) => o.state);
    if (answer.status === 200) expect(states).toEqual(['accepted']);
    else {
      expect([404, 409]).toContain(answer.status);
      expect(states).toEqual(['expired', 'open']);
    }
  });

  test('an answer before the window ends stops the lapse; without a window offers never lapse; setting one counts open offers from the change', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    await storeAt(b, 2);
    const lead = await leadAt(b, a);
    await offeredAt(lead.id, '2026-11-02T15:00:00Z');
    expect(await respondBy(lead.id)).toBeNull();
    now = new Date('2027-11-02T15:00:00Z');
    await offers.tick(); // (other tests' offers may lapse at this clock)
    expect(await offerRows(lead.id)).toMatchObject([{ state: 'open', respond_by: null }]);

    const before = Date.now();
    const settings = await responseSettings(b, { acceptMinutes: 30, businessHours: false, maxHandovers: 5 });
    expect(settings.updateResponseTimeSettings).toEqual({ acceptMinutes: 30, maxHandovers: 5 });
    now = new Date();
    await offers.tick();
    const by = new Date((await respondBy(lead.id))!).getTime();
    expect(by).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);

    const answered = await leadAt(b, a);
    await offeredAt(answered.id, '2026-11-02T15:00:00Z');
    expect((await accept(a.user, answered.id)).status).toBe(200);
    now = new Date('2026-11-02T16:00:00Z');
    await offers.tick();
    expect(await offerRows(lead.id)).toMatchObject([{ state: 'open' }]); // its window counts from the change, today
    expect(await offerRows(answered.id)).toMatchObject([{ state: 'accepted' }]);

    const bad = await gql(t, b.admin, 'mutation { updateResponseTimeSettings(input: { acceptMinutes: 0, maxHandovers: -1 }) { acceptMinutes } }');
    expect(bad.body.errors[0].extensions.details.map((d: any) => d.field).sort()).toEqual(['accept_minutes', 'max_handovers']);
    const read = await gql(t, b.admin, '{ responseTimeSettings { acceptMinutes maxHandovers } }');
    expect(read.body.data.responseTimeSettings).toEqual({ acceptMinutes: 30, maxHandovers: 5 });
  });
});

describe('reads', () => {
  test('Lead.offer is read in one statement for a page of leads', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    for (let i = 0; i < 6; i++) await leadAt(b, a);
    const count = async (n: number) => {
      t.resetStatements();
      const res = await gql(t, b.admin, `{ leads(perPage: ${n}) { nodes { id ${OFFER} } } }`);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.leads.nodes).toHaveLength(n);
      expect(res.body.data.leads.nodes.every((l: any) => l.offer.storeId === a.id)).toBe(true);
      return t.statements.length;
    };
    expect(await count(2)).toBe(await count(6));
  });
});
