// leadResponseStats (docs/response-times.md): scoped and filtered exactly as the lead list is.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
});
afterAll(async () => {
  await t.close();
});
const em = (): EntityManager => t.em();

const STATS = `query($where: LeadWhere, $groupBy: [ResponseStatsGroup!]) {
  leadResponseStats(where: $where, groupBy: $groupBy) { storeId territoryId retailerId week received answered medianFirstResponseSeconds p90FirstResponseSeconds breaches won lost } }`;
const LIST = `query($where: LeadWhere) { leads(where: $where, perPage: 1) { meta { total } } }`;

test("each role's received count is its lead list's count of assigned leads, for any filter", async () => {
  const { net, other, users } = await roles(em());
  const admin = users.companyAdmin.key;
  const made = [];
  for (const store of [net.storeNorth, net.storeNorth, net.storeNorth, net.storeSouth, net.storeSouth]) {
    made.push(await createLead(t, admin, quoteRequest({ assignee_id: store.id })));
  }
  await createLead(t, admin, quoteRequest());
  const otherAdmin = users.otherAdmin.key;
  await createLead(t, otherAdmin, quoteRequest({ assignee_id: other.storeNorth.id }));
  expect((await api(t, 'patch', `/v1/leads/${made[0].id}`, { key: users.locationUser.key, body: { lead: { status: 'Won' } } })).status).toBe(200);
  expect((await api(t, 'patch', `/v1/leads/${made[3].id}`, { key: users.salesAssociate.key, body: { lead: { status: 'lost' } } })).status).toBe(200);
  // A lead its creator sees only as its creator (another store's), and leads spread over weeks, as an import writes them.
  const own = await createLead(t, users.locationUser.key, quoteRequest());
  expect((await api(t, 'patch', `/v1/leads/${own.id}`, { key: admin, body: { lead: { assignee_id: net.storeSouth.id } } })).status).toBe(200);
  await em().getConnection().execute(`update leads set created_at = created_at - (abs(hashtext(id::text)) % 400) * interval '1 hour' where id in (?, ?, ?)`,
    [made[1].id, made[2].id, made[4].id]);
  const now = Date.now();
  const day = 86_400_000;

  const assigned = { assigneeId: { exists: true } };
  for (const [role, who] of Object.entries(users)) {
    if (role === 'operator') continue;
    const wheres = [null, { status: { eq: 'Won' } }, { territoryId: { eq: net.north.id } },
      { createdAt: { gte: new Date(now - 3 * day).toISOString(), lt: new Date(now + day).toISOString() } },
      { createdAt: { gt: new Date(now - 30 * day).toISOString() } }, { createdAt: { lte: new Date(now - day).toISOString() } }];
    for (const where of wheres) {
      const list = await gql(t, who.key, LIST, { where: where ? { _and: [assigned, where] } : assigned });
      expect(list.body.errors).toBeUndefined();
      for (const groupBy of [null, ['WEEK'], ['STORE'], ['TERRITORY', 'RETAILER'], ['STORE', 'WEEK']]) {
        const stats = await gql(t, who.key, STATS, { where, groupBy });
        expect(stats.body.errors).toBeUndefined();
        const received = stats.body.data.leadResponseStats.reduce((n: number, r: any) => n + r.received, 0);
        expect([role, where, groupBy, received]).toEqual([role, where, groupBy, list.body.data.leads.meta.total]);
      }
    }
  }

  const byStore = (await gql(t, admin, STATS, { groupBy: ['STORE', 'TERRITORY'] })).body.data.leadResponseStats;
  const north = byStore.find((r: any) => r.storeId === net.storeNorth.id);
  expect(north).toMatchObject({ territoryId: net.north.id, received: 3, answered: 1, won: 1, lost: 0, breaches: 0 });
  expect(byStore.filter((r: any) => r.storeId === net.storeNorth.id)).toHaveLength(1);
  const byWeek = (await gql(t, admin, STATS, { groupBy: ['STORE', 'WEEK'] })).body.data.leadResponseStats;
  expect(byWeek.every((r: any) => /^\d{4}-\d\d-\d\d$/.test(r.week))).toBe(true);
  expect(byWeek.filter((r: any) => r.storeId === net.storeNorth.id).reduce((n: number, r: any) => n + r.received, 0)).toBe(3);
  expect(north.medianFirstResponseSeconds).toBeGreaterThanOrEqual(0);
  expect(byStore.find((r: any) => r.storeId === net.storeSouth.id)).toMatchObject({ received: 3, answered: 1, lost: 1 });
  expect(byStore.some((r: any) => r.storeId === other.storeNorth.id)).toBe(false);
});

test('hostile groupings and filters are BAD_USER_INPUT or GraphQL validation errors, never a 5xx', async () => {
  const { users } = await roles(em());
  const key = users.companyAdmin.key;
  const huge = await gql(t, key, STATS, { groupBy: Array.from({ length: 5000 }, (_, i) => ['STORE', 'WEEK', 'TERRITORY', 'RETAILER'][i % 4]) });
  expect(huge.status).toBeLessThan(500);
  expect(huge.body.errors).toBeUndefined(); // duplicates collapse to the four groupings
  for (const variables of [{ groupBy: ['Nope'] }, { where: { nope: { eq: 1 } } }, { where: { createdAt: { gte: 'yesterday' } } }, { groupBy: 'STORE,WEEK' }]) {
    const res = await gql(t, key, STATS, variables);
    expect(res.status).toBeLessThan(500);
    expect(res.body.errors?.[0]?.extensions?.code).toMatch(/BAD_USER_INPUT|BAD_REQUEST/);
  }
  expect((await gql(t, users.operator.key, STATS)).body.errors[0].extensions.code).toBe('FORBIDDEN');
});

test("another tenant's stores, territories and retailers never appear in a company admin's groups, on every path", async () => {
  const { net, other, users } = await roles(em());
  for (const store of [net.storeNorth, net.storeSouth]) await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: store.id }));
  // The other brand's leads in the same weeks, at its own stores.
  await createLead(t, users.otherAdmin.key, quoteRequest({ assignee_id: other.storeNorth.id }));
  await createLead(t, users.otherAdmin.key, quoteRequest({ assignee_id: other.storeSouth.id }));
  const now = Date.now();
  const day = 86_400_000;
  const ranges = [null, { gte: new Date(now - 40 * day).toISOString(), lt: new Date(now + day).toISOString() },
    { gte: '2001-01-01', lt: new Date(now + day).toISOString() }, { gte: new Date(now + day).toISOString(), lt: new Date(now - day).toISOString() }];
  const theirs = new Set([other.storeNorth.id, other.storeSouth.id, other.north.id, other.south.id, other.retailer.id]);
  for (const [who, visible] of [[users.companyAdmin, new Set([net.storeNorth.id, net.storeSouth.id])], [users.otherAdmin, new Set([other.storeNorth.id, other.storeSouth.id])]] as const) {
    for (const createdAt of ranges) {
      const where = createdAt ? { createdAt } : null;
      const list = await gql(t, who.key, LIST, { where: where ? { _and: [{ assigneeId: { exists: true } }, where] } : { assigneeId: { exists: true } } });
      for (const groupBy of [['STORE'], ['TERRITORY'], ['RETAILER'], ['STORE', 'WEEK'], ['STORE', 'TERRITORY', 'RETAILER']]) {
        const res = await gql(t, who.key, STATS, { where, groupBy });
        expect(res.body.errors).toBeUndefined();
        const rows = res.body.data.leadResponseStats;
        expect(rows.reduce((n: number, r: any) => n + r.received, 0)).toBe(list.body.data.leads.meta.total);
        for (const r of rows.filter((x: any) => x.storeId)) expect([groupBy, visible.has(r.storeId)]).toEqual([groupBy, true]);
        if (who === users.companyAdmin) {
          expect(rows.some((r: any) => theirs.has(r.storeId) || theirs.has(r.territoryId) || theirs.has(r.retailerId))).toBe(false);
        }
      }
    }
  }
});

test('hostile ranges on the kept paths: reversed, empty, a day, centuries wide, out of range: client errors or exact figures, never a 5xx', async () => {
  const { users } = await roles(em());
  const key = users.companyAdmin.key;
  const cases = [
    { gte: '2026-06-01', lt: '2026-06-01' }, { gte: '2027-01-01', lt: '2026-01-01' }, { gt: '2026-06-01', lte: '2026-06-02' },
    { gte: '0001-01-01', lt: '9999-12-31' }, { gte: '1970-01-05', lt: '1980-01-07' }, { gte: '2025-12-29', lt: '2026-01-05' },
    { gte: '-271821-04-20', lt: '2026-01-01' }, { gte: '2026-01-01T00:00:00+14:00', lt: '2026-01-08T00:00:00-12:00' },
  ];
  for (const createdAt of cases) {
    const list = await gql(t, key, LIST, { where: { _and: [{ assigneeId: { exists: true } }, { createdAt }] } });
    for (const groupBy of [['STORE'], ['TERRITORY'], ['RETAILER'], ['STORE', 'WEEK']]) {
      const res = await gql(t, key, STATS, { where: { createdAt }, groupBy });
      expect([createdAt, groupBy, res.status < 500]).toEqual([createdAt, groupBy, true]);
      if (res.body.errors || list.body.errors) {
        expect(res.body.errors?.[0]?.extensions?.code).toBe(list.body.errors?.[0]?.extensions?.code);
        expect(res.body.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
      } else {
        expect([createdAt, groupBy, res.body.data.leadResponseStats.reduce((n: number, r: any) => n + r.received, 0)])
          .toEqual([createdAt, groupBy, list.body.data.leads.meta.total]);
      }
    }
  }
});

test('percentiles by store, territory and retailer are the nearest ranks of the same buckets on the kept and the per-lead paths', async () => {
  const { net, users } = await roles(em());
  const bucketOf = (seconds: number) => (seconds < 1 ? 0 : 1 + Math.floor(Math.log(seconds) / Math.log(1.1)));
  const reported = (bucket: number) => (bucket === 0 ? 0 : Math.round(Math.pow(1.1, bucket - 0.5) * 1000) / 1000);
  // 10 answered leads at the north store, each in its own bucket; 2 at the south store; 1 unanswered.
  const seconds = Array.from({ length: 10 }, (_, k) => 60 * (k + 1) ** 2);
  const north = [];
  for (let i = 0; i < 11; i++) north.push(await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id })));
  const south = [await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeSouth.id })),
    await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeSouth.id }))];
  const answer = (id: string, s: number) => em().getConnection().execute(
    `update lead_response_timers set answered_at = assigned_at + ? * interval '1 second' where lead_id = ?`, [s, id]);
  for (let i = 0; i < 10; i++) await answer(north[i].id, seconds[9 - i]);
  await answer(south[0].id, 30);
  await answer(south[1].id, 5000);
  const now = Date.now();
  const range = { gte: new Date(now - 14 * 86_400_000).toISOString(), lt: new Date(now + 86_400_000).toISOString() };
  const perLead = { _and: [{ createdAt: { gte: range.gte } }, { createdAt: { gte: range.gte } }, { createdAt: { lt: range.lt } }] };
  for (const groupBy of [['STORE'], ['STORE', 'TERRITORY', 'RETAILER'], ['STORE', 'WEEK']]) {
    const kept = (await gql(t, users.companyAdmin.key, STATS, { where: { createdAt: range }, groupBy })).body.data.leadResponseStats;
    const facts = (await gql(t, users.companyAdmin.key, STATS, { where: perLead, groupBy })).body.data.leadResponseStats;
    expect(kept).toEqual(facts);
    const sum = (store: string) => kept.filter((r: any) => r.storeId === store);
    if (groupBy.includes('WEEK')) continue;
    // Nearest rank: the 5th and the 9th of 10, the 1st and the 2nd of 2.
    expect(sum(net.storeNorth.id)).toEqual([expect.objectContaining({ received: 11, answered: 10,
      medianFirstResponseSeconds: reported(bucketOf(seconds[4])), p90FirstResponseSeconds: reported(bucketOf(seconds[8])) })]);
    expect(sum(net.storeSouth.id)).toEqual([expect.objectContaining({ received: 2, answered: 2,
      medianFirstResponseSeconds: reported(bucketOf(30)), p90FirstResponseSeconds: reported(bucketOf(5000)) })]);
  }
});
