// leadFunnel (docs/lead-loop.md "The funnel"): scoped and filtered exactly as the lead list; groupings;
// declines by reason; revenue per currency; the median time to accept.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { bucketSeconds } from '../../src/modules/lead-outcomes/lead-funnel.queries';

/** What the funnel answers for a median of `seconds`: its log-scale bucket's middle (within 4.9%), rounded to a second (docs/lead-loop.md). */
const approx = (seconds: number) => {
  const answer = Math.round(bucketSeconds(seconds < 1 ? 0 : 1 + Math.floor(Math.log(seconds) / Math.log(1.1)))!);
  expect(Math.abs(answer - seconds)).toBeLessThanOrEqual(0.049 * seconds + 0.5);
  return answer;
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
});
afterAll(async () => {
  await t.close();
});
const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params);

const FUNNEL = `query($where: LeadWhere, $groupBy: [LeadFunnelGroup!]) {
  leadFunnel(where: $where, groupBy: $groupBy) {
    storeId territoryId retailerId week source leads offered accepted declined declinedByReason { reason count } expired
    contacted won lost revenue { currency amountMinor } medianSecondsToAccept } }`;
const LIST = `query($where: LeadWhere) { leads(where: $where, perPage: 1) { meta { total } } }`;

const ok = (res: any) => {
  expect(res.body.errors).toBeUndefined();
  return res;
};
const accept = async (key: string, id: string) => expect((await api(t, 'post', `/v1/leads/${id}/accept`, { key })).status).toBe(200);
const decline = async (key: string, id: string, reason: string) =>
  expect((await api(t, 'post', `/v1/leads/${id}/decline`, { key, body: { reason, note: reason === 'other' ? 'why' : null } })).status).toBe(200);
const outcome = async (key: string, id: string, body: Record<string, unknown>) =>
  expect((await api(t, 'post', `/v1/leads/${id}/outcome`, { key, body })).status).toBe(200);

/** A company's loop: accepted, declined, lapsed and unassigned leads with outcomes; another tenant's beside it. */
async function world() {
  const r = await roles(em());
  const { net, other, users } = r;
  const admin = users.companyAdmin.key;
  const north = (extra: Record<string, unknown> = {}) => createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id, ...extra }));
  const south = (extra: Record<string, unknown> = {}) => createLead(t, admin, quoteRequest({ assignee_id: net.storeSouth.id, ...extra }));
  const a = await north({ source_type: 'web' });
  const b = await north({ source_type: 'web' });
  const f = await north();
  const c = await south();
  const d = await south();
  const e = await south();
  const g = await createLead(t, admin, quoteRequest({ source_type: 'web' }));
  // A lead the location user made itself, beyond its store (it sees it as its creator).
  const own = await createLead(t, users.locationUser.key, quoteRequest());
  await accept(users.locationUser.key, a.id);
  await decline(users.locationUser.key, b.id, 'too_far');
  await decline(users.salesAssociate.key, c.id, 'out_of_stock');
  await accept(users.salesAssociate.key, d.id);
  await sql(`update lead_offers set state = 'expired', answered_at = now() where lead_id = ? and state = 'open'`, [f.id]);
  // Accepted 60 s and 180 s after their offers.
  await sql(`update lead_offers set answered_at = offered_at + interval '60 seconds' where lead_id = ? and state = 'accepted'`, [a.id]);
  await sql(`update lead_offers set answered_at = offered_at + interval '180 seconds' where lead_id = ? and state = 'accepted'`, [d.id]);
  await outcome(users.locationUser.key, a.id, { result: 'won', amount_minor: 1000, currency: 'USD' });
  await outcome(users.salesAssociate.key, d.id, { result: 'won', amount_minor: 500, currency: 'EUR' });
  await outcome(admin, g.id, { result: 'won', amount_minor: 250, currency: 'USD' });
  await outcome(users.salesAssociate.key, e.id, { result: 'lost', lost_reason: 'Price' });
  // Another brand's loop at its own stores.
  const theirs = await createLead(t, users.otherAdmin.key, quoteRequest({ assignee_id: other.storeNorth.id, source_type: 'web' }));
  await outcome(users.otherAdmin.key, theirs.id, { result: 'won', amount_minor: 99_999, currency: 'USD' });
  return { ...r, leads: { a, b, c, d, e, f, g, own } };
}

test("each role's funnel counts the leads of its lead list, for every filter and grouping", async () => {
  const { net, users, leads } = await world();
  // One lead two weeks back, as an import writes it.
  await sql(`update leads set created_at = created_at - interval '14 days' where id = ?`, [leads.c.id]);
  const now = Date.now();
  const day = 86_400_000;
  const wheres = [null, { status: { eq: 'Won' } }, { territoryId: { eq: net.north.id } }, { sourceType: { eq: 'web' } },
    { createdAt: { gte: new Date(now - 3 * day).toISOString(), lt: new Date(now + day).toISOString() } }, { assigneeId: { exists: true } }];
  for (const [role, who] of Object.entries(users)) {
    if (role === 'operator') continue;
    for (const where of wheres) {
      const list = ok(await gql(t, who.key, LIST, { where }));
      const total = list.body.data.leads.meta.total;
      for (const groupBy of [null, ['STORE'], ['TERRITORY'], ['RETAILER'], ['WEEK'], ['SOURCE'], ['STORE', 'WEEK', 'SOURCE']]) {
        const rows = ok(await gql(t, who.key, FUNNEL, { where, groupBy })).body.data.leadFunnel;
        const leadsCounted = rows.reduce((n: number, row: any) => n + row.leads, 0);
        expect([role, where, groupBy, leadsCounted]).toEqual([role, where, groupBy, total]);
      }
    }
  }
  const forbidden = await gql(t, users.operator.key, FUNNEL);
  expect(forbidden.body.errors[0].extensions.code).toBe('FORBIDDEN');
});

test('the company admin: figures per store, territory, retailer, source and week; declines by reason; revenue per currency; median to accept', async () => {
  const { net, other, users, leads } = await world();
  const key = users.companyAdmin.key;
  const [all] = ok(await gql(t, key, FUNNEL)).body.data.leadFunnel;
  const contacted = (await sql(`select count(*)::int as n from lead_response_timers t join leads l on l.id = t.lead_id
    where l.owner_company_id = ? and t.answered_at is not null`, [net.company.id]))[0].n;
  expect(all).toMatchObject({
    storeId: null, week: null, source: null,
    leads: 8, offered: 6, accepted: 2, declined: 2, expired: 1, won: 3, lost: 1, contacted,
    revenue: [{ currency: 'EUR', amountMinor: 500 }, { currency: 'USD', amountMinor: 1250 }],
    medianSecondsToAccept: approx(60),
  });
  expect(all.declinedByReason).toEqual(expect.arrayContaining([{ reason: 'too_far', count: 1 }, { reason: 'out_of_stock', count: 1 }]));
  expect(contacted).toBeGreaterThanOrEqual(2); // the accepts answered their timers

  const byStore = ok(await gql(t, key, FUNNEL, { groupBy: ['STORE'] })).body.data.leadFunnel;
  const storeRow = (id: string | null) => byStore.find((r: any) => r.storeId === id);
  expect(storeRow(net.storeNorth.id)).toMatchObject({
    offered: 3, accepted: 1, declined: 1, expired: 1, declinedByReason: [{ reason: 'too_far', count: 1 }], won: 1,
    revenue: [{ currency: 'USD', amountMinor: 1000 }], medianSecondsToAccept: approx(60),
  });
  expect(storeRow(net.storeSouth.id)).toMatchObject({
    offered: 3, accepted: 1, declined: 1, expired: 0, declinedByReason: [{ reason: 'out_of_stock', count: 1 }], won: 1, lost: 1,
    revenue: [{ currency: 'EUR', amountMinor: 500 }], medianSecondsToAccept: 180,
  });
  // The unassigned leads (g, and the location user's own) are the row without a store.
  expect(storeRow(null)).toMatchObject({ leads: 2, offered: 0, won: 1, revenue: [{ currency: 'USD', amountMinor: 250 }], medianSecondsToAccept: null });
  expect(byStore.some((r: any) => r.storeId === other.storeNorth.id)).toBe(false);

  const byTerritory = ok(await gql(t, key, FUNNEL, { groupBy: ['TERRITORY'] })).body.data.leadFunnel;
  expect(byTerritory.find((r: any) => r.territoryId === net.north.id)).toMatchObject({ offered: 3, expired: 1, storeId: null });
  expect(byTerritory.find((r: any) => r.territoryId === net.south.id)).toMatchObject({ offered: 3, lost: 1 });
  const byRetailer = ok(await gql(t, key, FUNNEL, { groupBy: ['RETAILER'] })).body.data.leadFunnel;
  expect(byRetailer.find((r: any) => r.retailerId === net.retailer.id)).toMatchObject({ offered: 6, accepted: 2, won: 2 });
  expect(byRetailer.some((r: any) => r.retailerId === other.retailer.id)).toBe(false);

  const bySource = ok(await gql(t, key, FUNNEL, { groupBy: ['SOURCE'] })).body.data.leadFunnel;
  expect(bySource.find((r: any) => r.source === 'web')).toMatchObject({ leads: 3, offered: 2, accepted: 1, declined: 1, won: 2,
    revenue: [{ currency: 'USD', amountMinor: 1250 }] });
  expect(bySource.find((r: any) => r.source === null)).toMatchObject({ leads: 5, offered: 4 });

  await sql(`update leads set created_at = created_at - interval '14 days' where id = ?`, [leads.d.id]);
  const byWeek = ok(await gql(t, key, FUNNEL, { groupBy: ['WEEK'] })).body.data.leadFunnel;
  expect(byWeek).toHaveLength(2);
  expect(byWeek.every((r: any) => /^\d{4}-\d\d-\d\d$/.test(r.week) && new Date(`${r.week}T00:00:00Z`).getUTCDay() === 1)).toBe(true);
  expect(byWeek[0]).toMatchObject({ leads: 1, accepted: 1, won: 1, revenue: [{ currency: 'EUR', amountMinor: 500 }], medianSecondsToAccept: approx(180) });
  expect(byWeek[1]).toMatchObject({ leads: 7, accepted: 1, medianSecondsToAccept: approx(60) });

  // A filter narrows every figure as it narrows the list.
  const [won] = ok(await gql(t, key, FUNNEL, { where: { status: { eq: 'Won' } } })).body.data.leadFunnel;
  expect(won).toMatchObject({ leads: 3, won: 3, lost: 0, offered: 2, accepted: 2 });

  // The store's own user sees its store's leads and its own.
  const [mine] = ok(await gql(t, users.locationUser.key, FUNNEL)).body.data.leadFunnel;
  expect(mine).toMatchObject({ leads: 4, offered: 3, accepted: 1, declined: 1, expired: 1, won: 1, revenue: [{ currency: 'USD', amountMinor: 1000 }] });
});

test('hostile groupings and filters are client errors, never a 5xx', async () => {
  const { users } = await roles(em());
  const key = users.companyAdmin.key;
  const huge = await gql(t, key, FUNNEL, { groupBy: Array.from({ length: 5000 }, (_, i) => ['STORE', 'WEEK', 'TERRITORY', 'RETAILER', 'SOURCE'][i % 5]) });
  expect(huge.status).toBeLessThan(500);
  expect(huge.body.errors).toBeUndefined();
  for (const variables of [{ groupBy: ['Nope'] }, { where: { nope: { eq: 1 } } }, { where: { createdAt: { gte: 'yesterday' } } }]) {
    const res = await gql(t, key, FUNNEL, variables);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|BAD_REQUEST/);
  }
});
