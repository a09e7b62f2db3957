// Reassignment respects opening hours (docs/lead-loop.md "Hand-over and lapse", docs/response-times.md):
// whichever writer hands a lead to a store that is closed now (the offer lapse's hand-over, the
// first-response breach's reassignment, routing of a new lead), the new store's acceptance window and
// first-response time start at its next opening, as GraphQL and REST show them (`offer.respondBy`,
// `respondBy`, `respond_by`), and no worker lapses or reassigns the lead while that store is closed.
// The workers run on clocks the tests move; the hand-overs themselves happen now, so the closed store is
// one that opens only two days from today, in its own zone (Europe/Paris).
import type { EntityManager } from '@mikro-orm/postgresql';
import { DateTime } from 'luxon';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { locatorNetwork, north, store } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { WEEKDAYS } from '../../src/modules/retailer-location/hour.entity';
import { LeadOfferWorker } from '../../src/modules/response-times/offer-lapse.worker';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';

const MILE = 1609.344;
const ORIGIN = { latitude: 45, longitude: -100 };
const ZONE = 'Europe/Paris';

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
beforeEach(() => {
  now = new Date();
});

const em = (): EntityManager => t.em();

async function ok(key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** A brand with its admin, routing by nearest store (on or off), and these response-time settings. */
async function brand(settings: Record<string, unknown>, routing = false) {
  const net = await locatorNetwork(em());
  const admin = (await f.userWithKey(em(), Role.CompanyAdmin, net.company)).key;
  await ok(admin, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', {
    input: { enabled: routing, strategies: ['Nearest'], nearestMaxDistanceMiles: 500 },
  });
  await ok(admin, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { businessHours } }', { input: settings });
  return { ...net, admin };
}
type Brand = Awaited<ReturnType<typeof brand>>;

/** The next opening of the closed store: 09:00 in its zone, two days from today there (it is open that weekday only, 09:00 to 17:00). */
function nextOpening(): DateTime {
  return DateTime.now().setZone(ZONE).plus({ days: 2 }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 });
}

/** A store open all hours (no opening hours: every hour counts), one mile north. */
const openStore = (b: Brand) => store(em(), b.companyRetailer, { ...north(ORIGIN, 1 * MILE) });
/** A store two miles north, closed today and tomorrow: open only on the weekday of `nextOpening()`, in Paris. */
const closedStore = (b: Brand) =>
  store(em(), b.companyRetailer, { ...north(ORIGIN, 2 * MILE), locationTimezone: ZONE, hours: [{ day: WEEKDAYS[nextOpening().weekday - 1] }] });

const at = { street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US' };
const LEAD = `query($id: ID!) { lead(id: $id) { assigneeId respondBy offer { storeId state respondBy } } }`;
const iso = (d: DateTime) => d.toUTC().toISO({ suppressMilliseconds: false });

test("an offer's lapse hands the lead to a closed store: its acceptance window starts at the store's next opening, and nothing lapses before", async () => {
  const b = await brand({ acceptMinutes: 60 });
  const open = await openStore(b);
  const closed = await closedStore(b);
  const lead = await createLead(t, b.admin, quoteRequest({ assignee_id: open.id, location: at }));
  await offers.tick(); // the open store's window: 60 minutes from now (it counts every hour)
  now = new Date(Date.now() + 2 * 3_600_000);
  expect((await offers.tick()).expired).toBe(1);
  await offers.tick(); // the closed store's window is computed
  const opening = nextOpening();
  const shown = (await ok(b.admin, LEAD, { id: lead.id })).lead;
  expect(shown).toMatchObject({ assigneeId: closed.id, offer: { storeId: closed.id, state: 'OPEN', respondBy: iso(opening.plus({ minutes: 60 })) } });

  // Through the closed days and the first 59 minutes of the opening: the offer stays open, the lead stays.
  for (const when of [opening.minus({ days: 1 }), opening.minus({ minutes: 1 }), opening.plus({ minutes: 59 })]) {
    now = when.toJSDate();
    expect((await offers.tick()).expired).toBe(0);
  }
  expect((await ok(b.admin, LEAD, { id: lead.id })).lead.offer).toMatchObject({ storeId: closed.id, state: 'OPEN' });
  now = opening.plus({ minutes: 60 }).toJSDate();
  expect((await offers.tick()).expired).toBe(1);
  expect((await ok(b.admin, LEAD, { id: lead.id })).lead.offer).toMatchObject({ storeId: closed.id, state: 'EXPIRED' });
});

test("a first-response breach reassigns the lead to a closed store: its first-response time starts at the store's next opening (GraphQL and REST), and no breach comes before", async () => {
  const b = await brand({ firstResponseMinutes: 30, reassign: true });
  const open = await openStore(b);
  const closed = await closedStore(b);
  const lead = await createLead(t, b.admin, quoteRequest({ assignee_id: open.id, location: at }));
  await timers.tick(); // due in 30 minutes at the open store
  now = new Date(Date.now() + 3_600_000);
  expect((await timers.tick()).breached).toBe(1);
  await timers.tick(); // the closed store's due time is computed
  const due = nextOpening().plus({ minutes: 30 });
  expect((await ok(b.admin, LEAD, { id: lead.id })).lead).toMatchObject({ assigneeId: closed.id, respondBy: iso(due) });
  const rest = await api(t, 'get', `/v1/leads/${lead.id}`, { key: b.admin });
  expect(rest.body).toMatchObject({ respond_by: iso(due), breached: false });

  for (const when of [nextOpening().minus({ hours: 12 }), due.minus({ minutes: 1 })]) {
    now = when.toJSDate();
    expect((await timers.tick()).breached).toBe(0);
  }
  now = due.toJSDate();
  expect((await timers.tick()).breached).toBe(1);
});

test("a new lead routed to a store that is closed now: its first-response time and its offer's window both start at the store's next opening", async () => {
  const b = await brand({ firstResponseMinutes: 30, acceptMinutes: 60 }, true);
  const closed = await closedStore(b);
  const lead = await createLead(t, b.admin, quoteRequest({ location: at }));
  await timers.tick();
  await offers.tick();
  const opening = nextOpening();
  expect((await ok(b.admin, LEAD, { id: lead.id })).lead).toMatchObject({
    assigneeId: closed.id,
    respondBy: iso(opening.plus({ minutes: 30 })),
    offer: { storeId: closed.id, state: 'OPEN', respondBy: iso(opening.plus({ minutes: 60 })) },
  });
  // Still open and unbreached the night before the opening.
  now = opening.minus({ hours: 10 }).toJSDate();
  expect((await timers.tick()).breached).toBe(0);
  expect((await offers.tick()).expired).toBe(0);
});
