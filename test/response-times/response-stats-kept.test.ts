// leadResponseStats from the kept facts and company rollup (docs/response-times.md "How the figures are kept"):
// equal to a recomputation from the leads after random writes, answered only by the store's users,
// back-filled by the migration, and bounded per organisation under concurrency.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config';
import { withDatabase } from '../support/global-setup';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { STATS_RUNNING_PER_ORGANISATION, STATS_WAITING_PER_ORGANISATION, statsShare } from '../../src/modules/response-times/response-stats';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
});
afterAll(async () => {
  await t.close();
});
const em = (): EntityManager => t.em();
const sql = async (text: string, params: unknown[] = []) => (await em().getConnection().execute(text, params, 'all')) as any[];

const STATS = `query($where: LeadWhere, $groupBy: [ResponseStatsGroup!]) {
  leadResponseStats(where: $where, groupBy: $groupBy) { storeId territoryId retailerId week received answered medianFirstResponseSeconds p90FirstResponseSeconds breaches won lost } }`;

/** A deterministic pseudo-random sequence (mulberry32), so a failure replays. */
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] };
}

/** The documented bucket of a time to first response (1.1 log scale; 0 under a second) and the value reported for it. */
const bucketOf = (seconds: number) => (seconds < 1 ? 0 : 1 + Math.floor(Math.log(seconds) / Math.log(1.1)));
const reported = (bucket: number) => (bucket === 0 ? 0 : Math.round(Math.pow(1.1, bucket - 0.5) * 1000) / 1000);
const mondayOf = (d: Date) => {
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
};

/** Every lead with a timer, straight from `leads` and `lead_response_timers` (not from the kept tables). */
async function rawLeads() {
  return sql(`select l.id, l.owner_company_id, l.assignee_company_id, l.created_by_id, l.assignee_id, l.assignee_territory_id, l.assignee_retailer_id,
                     l.created_at, l.status, t.first_assigned_at, t.breached_at is not null as breached,
                     extract(epoch from t.answered_at - t.assigned_at)::float8 as seconds
                from leads l join lead_response_timers t on t.lead_id = l.id`);
}

/** The figures the company admin `adminId` of `companyId` should get, computed here from the raw rows. */
function expected(rows: any[], companyId: string, adminId: string, groupBy: string[], range: { gte?: string; lt?: string }) {
  const key = (r: any) => groupBy.map((g) => (g === 'STORE' ? r.assignee_id : g === 'TERRITORY' ? r.assignee_territory_id : g === 'RETAILER' ? r.assignee_retailer_id : mondayOf(new Date(r.first_assigned_at)))).join('|');
  const groups = new Map<string, any[]>();
  for (const r of rows) {
    const visible = r.owner_company_id === companyId || r.assignee_company_id === companyId || r.created_by_id === adminId;
    const created = new Date(r.created_at).getTime();
    if (!visible || (range.gte && created < Date.parse(range.gte)) || (range.lt && created >= Date.parse(range.lt))) continue;
    groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  }
  if (!groupBy.length && !groups.size) groups.set('', []);
  const percentile = (sorted: number[], p: number) => (sorted.length ? reported(sorted[Math.ceil(p * sorted.length) - 1]) : null);
  return [...groups.entries()].map(([k, list]) => {
    const buckets = list.filter((r) => r.seconds !== null).map((r) => bucketOf(r.seconds)).sort((a, b) => a - b);
    return {
      key: k,
      received: list.length,
      answered: buckets.length,
      medianFirstResponseSeconds: percentile(buckets, 0.5),
      p90FirstResponseSeconds: percentile(buckets, 0.9),
      breaches: list.filter((r) => r.breached).length,
      won: list.filter((r) => r.status.toLowerCase() === 'won').length,
      lost: list.filter((r) => r.status.toLowerCase() === 'lost').length,
    };
  }).sort((a, b) => a.key.localeCompare(b.key));
}

function actual(rows: any[], groupBy: string[]) {
  return rows.map((r) => ({
    key: groupBy.map((g) => (g === 'STORE' ? r.storeId : g === 'TERRITORY' ? r.territoryId : g === 'RETAILER' ? r.retailerId : r.week)).join('|'),
    received: r.received, answered: r.answered, medianFirstResponseSeconds: r.medianFirstResponseSeconds,
    p90FirstResponseSeconds: r.p90FirstResponseSeconds, breaches: r.breaches, won: r.won, lost: r.lost,
  })).sort((a, b) => a.key.localeCompare(b.key));
}

/** The kept facts and rollup differ from a recomputation from the leads and timers: the rows that differ. */
async function drift() {
  const facts = await sql(`
    with fresh as (
      select l.id as lead_id, l.owner_company_id, l.owner_retailer_id, l.assignee_id, l.assignee_company_id, l.assignee_territory_id,
             l.assignee_company_retailer_id, l.assignee_retailer_id, l.assignee_retailer_location_id, l.created_at,
             date_trunc('week', l.created_at at time zone 'UTC')::date as created_week,
             date_trunc('week', t.first_assigned_at at time zone 'UTC')::date as assigned_week,
             leadnet_response_bucket(extract(epoch from t.answered_at - t.assigned_at)::float8) as bucket,
             t.breached_at is not null as breached, lower(l.status) = 'won' as won, lower(l.status) = 'lost' as lost,
             greatest(t.breaches, (t.breached_at is not null)::int) as breaches
        from leads l join lead_response_timers t on t.lead_id = l.id)
    (select 'missing' as side, * from fresh except select 'missing', * from lead_response_facts)
    union all (select 'stale', * from lead_response_facts except select 'stale', * from fresh)`);
  const rollups = await sql(`
    with fresh as (
      select owner_company_id, assignee_company_id, created_week, assigned_week, bucket, count(*)::int as received,
             coalesce(sum(breaches), 0)::int as breaches, (count(*) filter (where won))::int as won, (count(*) filter (where lost))::int as lost
        from lead_response_facts where owner_company_id is not null or assignee_company_id is not null
       group by 1, 2, 3, 4, 5)
    (select 'missing' as side, * from fresh except select 'missing', * from lead_response_rollups)
    union all (select 'stale', * from lead_response_rollups except select 'stale', * from fresh)`);
  return { facts, rollups, storeWeeks: await storeWeeksDrift() };
}

/**
 * The kept store weeks against running totals recomputed here from the facts: per store keys and
 * calendar year (of the week's Monday), a row for every week from its first fact's week to the year's
 * last Monday, holding the facts of the year up to that week (histogram[b] = answered in bucket b).
 */
async function storeWeeksDrift() {
  const facts = await sql(`select owner_company_id, assignee_company_id, assignee_id, assignee_territory_id, assignee_retailer_id,
                                  created_week::text as week, bucket, breaches, won, lost
                             from lead_response_facts where owner_company_id is not null or assignee_company_id is not null`);
  const kept = await sql(`select owner_company_id, assignee_company_id, assignee_id, assignee_territory_id, assignee_retailer_id,
                                 week::text as week, received, answered, breaches, won, lost, histogram from lead_response_store_weeks`);
  const keyOf = (r: any) => [r.owner_company_id, r.assignee_company_id, r.assignee_id, r.assignee_territory_id, r.assignee_retailer_id].join('|');
  const lastMonday = (year: number) => mondayOf(new Date(Date.UTC(year, 11, 31)));
  const fresh = new Map<string, any>();
  const years = new Map<string, { key: any; year: number; first: string }>();
  for (const f of facts) {
    const id = `${keyOf(f)}|${f.week.slice(0, 4)}`;
    const y = years.get(id);
    if (!y || f.week < y.first) years.set(id, { key: f, year: Number(f.week.slice(0, 4)), first: f.week });
  }
  for (const { key, year, first } of years.values()) {
    for (let w = new Date(`${first}T00:00:00Z`); w.toISOString().slice(0, 10) <= lastMonday(year); w.setUTCDate(w.getUTCDate() + 7)) {
      const week = w.toISOString().slice(0, 10);
      const mine = facts.filter((f) => keyOf(f) === keyOf(key) && f.week.slice(0, 4) === String(year) && f.week <= week);
      const histogram: number[] = [];
      for (const f of mine) if (f.bucket !== null) histogram[f.bucket] = (histogram[f.bucket] ?? 0) + 1;
      fresh.set(`${keyOf(key)}|${week}`, {
        received: mine.length, answered: mine.filter((f) => f.bucket !== null).length, breaches: mine.reduce((n, f) => n + f.breaches, 0),
        won: mine.filter((f) => f.won).length, lost: mine.filter((f) => f.lost).length, histogram: Array.from(histogram, (n) => n ?? 0),
      });
    }
  }
  const stored = new Map(kept.map((r) => [`${keyOf(r)}|${r.week}`, {
    received: r.received, answered: r.answered, breaches: r.breaches, won: r.won, lost: r.lost, histogram: r.histogram,
  }]));
  const differ: unknown[] = [];
  for (const [id, row] of fresh) if (JSON.stringify(stored.get(id)) !== JSON.stringify(row)) differ.push({ id, fresh: row, kept: stored.get(id) ?? null });
  for (const [id, row] of stored) if (!fresh.has(id)) differ.push({ id, fresh: null, kept: row });
  return differ;
}

test('after a random series of writes, the kept figures equal a recomputation from the leads, for every grouping and range', async () => {
  const { net, other, users } = await roles(em());
  const rng = random(2311);
  const writers = [users.companyAdmin, users.locationUser, users.salesAssociate, users.storeManager, users.territoryManager];
  const stores = [net.storeNorth.id, net.storeSouth.id, null];
  const leads: { id: string; email: string }[] = [];
  const ops: string[] = [];
  const ok = (res: { status: number; body: any }, what: string) => {
    if (res.status >= 500) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  for (let i = 0; i < 70; i++) {
    if (i === 35) {
      // An import back-dates every lead so far by 0 to 40 days and some hours: weeks start and end among them.
      // The n-th lead (in creation order) by n * 97 hours modulo 960: spread over six weeks on every run.
      const shifts = `(select id, ((row_number() over (order by created_at, id)) * 97 % 960) * interval '1 hour' as shift from leads) s`;
      await sql(`update lead_response_timers t set first_assigned_at = first_assigned_at - s.shift, assigned_at = assigned_at - s.shift, answered_at = answered_at - s.shift
                   from ${shifts} where s.id = t.lead_id`);
      await sql(`update leads l set created_at = l.created_at - s.shift from ${shifts} where s.id = l.id`);
    }
    const lead = leads.length ? rng.pick(leads) : null;
    const who = rng.pick(writers);
    const op = !lead || rng.next() < 0.2 ? 'create' : rng.pick(['status', 'activity', 'reassign', 'unassign', 'delete', 'merge', 'breach', 'age', 'territory', 'other']);
    ops.push(op);
    if (op === 'create') {
      const body = quoteRequest({ assignee_id: rng.pick(stores) ?? undefined });
      const created = await createLead(t, users.companyAdmin.key, body);
      leads.push({ id: created.id, email: (body.lead.emails as { email: string }[])[0].email });
    } else if (op === 'status') {
      ok(await api(t, 'patch', `/v1/leads/${lead!.id}`, { key: who.key, body: { lead: { status: rng.pick(['Contacted', 'Won', 'lost', 'New']) } } }), op);
    } else if (op === 'activity') {
      ok(await api(t, 'post', '/v1/lead_activities', { key: who.key, body: { lead_activity: { lead_id: lead!.id, type: 'LeadActivity::Note', data: { body: 'called' } } } }), op);
    } else if (op === 'reassign' || op === 'unassign') {
      ok(await api(t, 'patch', `/v1/leads/${lead!.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: op === 'unassign' ? null : rng.pick(stores.slice(0, 2)) } } }), op);
    } else if (op === 'delete') {
      ok(await api(t, 'delete', `/v1/leads/${lead!.id}`, { key: users.companyAdmin.key }), op);
      leads.splice(leads.indexOf(lead!), 1);
    } else if (op === 'merge') {
      // The same e-mail again: merged into the existing lead (PRODUCT.md 5), by one of its store's users or the admin.
      const res = await api(t, 'post', '/v1/leads', { key: who.key, body: quoteRequest({ emails: [{ email: lead!.email }] }) });
      ok(res, op);
    } else if (op === 'breach') {
      // What the response-time worker records when a due time passes.
      await sql(`update lead_response_timers set breached_at = now() where lead_id = ? and answered_at is null and breached_at is null`, [lead!.id]);
    } else if (op === 'age') {
      // An import back-dating a lead and its timer by 1 to 30 days (moves it across weeks).
      const days = 1 + Math.floor(rng.next() * 30);
      await sql(`update leads set created_at = created_at - ? * interval '1 day' where id = ?`, [days, lead!.id]);
      await sql(`update lead_response_timers set first_assigned_at = first_assigned_at - ? * interval '1 day', assigned_at = assigned_at - ? * interval '1 day',
                 answered_at = answered_at - ? * interval '1 day' + ? * interval '1 minute' where lead_id = ?`, [days, days, days, Math.floor(rng.next() * 600), lead!.id]);
    } else if (op === 'territory') {
      // The south store moves territory: its leads' scope keys follow (and their facts).
      await sql(`update company_retailer_locations set territory_id = case when territory_id = ? then ?::uuid else ?::uuid end where id = ?`,
        [net.south.id, net.north.id, net.south.id, net.storeSouth.id]);
    } else {
      // Another company's lead, assigned to its own store: never in this company's figures.
      await createLead(t, users.otherAdmin.key, quoteRequest({ assignee_id: other.storeNorth.id }));
    }
  }
  expect(new Set(ops).size).toBeGreaterThanOrEqual(10);
  // An import moves three leads across New Year (the store weeks' totals restart each calendar year).
  const movedAcross = `(select id, (array[380, 372, 340])[row_number() over (order by id)] * interval '1 day' as shift from leads
                          where id in (select lead_id from lead_response_timers order by lead_id limit 3)) s`;
  await sql(`update lead_response_timers t set first_assigned_at = first_assigned_at - s.shift, assigned_at = assigned_at - s.shift, answered_at = answered_at - s.shift
               from ${movedAcross} where s.id = t.lead_id`);
  await sql(`update leads l set created_at = l.created_at - s.shift from ${movedAcross} where s.id = l.id`);

  expect(await drift()).toEqual({ facts: [], rollups: [], storeWeeks: [] });
  expect((await sql(`select count(*)::int as n from lead_response_store_weeks`))[0].n).toBeGreaterThan(20);
  const raw = await rawLeads();
  const times = raw.map((r) => new Date(r.created_at).getTime()).sort((a, b) => a - b);
  expect(new Set(times.map((ms) => mondayOf(new Date(ms)))).size).toBeGreaterThanOrEqual(4);
  // Bounds inside weeks that hold leads on both sides of them, a Monday, and open ends.
  const at = (share: number) => new Date(times[Math.floor(share * (times.length - 1))] + 1).toISOString();
  const monday = mondayOf(new Date(times[Math.floor(times.length / 2)]));
  const ranges = [{}, { gte: at(0.25), lt: at(0.75) }, { gte: monday }, { lt: at(0.6) }, { gte: at(0.1) },
    // Across New Year, from a year's first lead, Monday to Monday, one week, and beyond ten years (read from the facts).
    { gte: at(0), lt: at(0.5) }, { gte: at(0.02), lt: at(1) }, { gte: monday, lt: `${new Date(Date.parse(monday) + 14 * 86_400_000).toISOString().slice(0, 10)}` },
    { gte: monday, lt: `${new Date(Date.parse(monday) + 7 * 86_400_000).toISOString().slice(0, 10)}` }, { gte: '2001-01-01', lt: at(0.9) }];
  expect(new Date(times[0]).getUTCFullYear()).toBeLessThan(new Date(times[times.length - 1]).getUTCFullYear());
  for (const groupBy of [[], ['WEEK'], ['STORE'], ['TERRITORY'], ['RETAILER'], ['STORE', 'TERRITORY', 'RETAILER'], ['STORE', 'WEEK'], ['STORE', 'TERRITORY', 'RETAILER', 'WEEK']]) {
    for (const range of ranges) {
      const res = await gql(t, users.companyAdmin.key, STATS, { where: Object.keys(range).length ? { createdAt: range } : null, groupBy });
      expect(res.body.errors).toBeUndefined();
      expect([groupBy, range, actual(res.body.data.leadResponseStats, groupBy)]).toEqual([groupBy, range, expected(raw, net.company.id, users.companyAdmin.user.id, groupBy, range)]);
    }
  }
});

test("a lead is answered by its store's users, not by a company admin's note or status change (GraphQL and REST)", async () => {
  const { net, users } = await roles(em());
  const admin = users.companyAdmin.key;
  const lead = await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
  const answered = async () => (await sql(`select answered_at from lead_response_timers where lead_id = ?`, [lead.id]))[0].answered_at;
  const stats = async () => (await gql(t, admin, STATS, { where: { territoryId: { eq: net.north.id } } })).body.data.leadResponseStats[0];

  expect((await api(t, 'post', '/v1/lead_activities', { key: admin, body: { lead_activity: { lead_id: lead.id, type: 'LeadActivity::Note', data: { body: 'nudge' } } } })).status).toBe(201);
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin, body: { lead: { status: 'Contacted' } } })).status).toBe(200);
  const note = await gql(t, users.territoryManager.key, `mutation($input: LeadActivityInput!) { createLeadActivity(input: $input) { id } }`, {
    input: { leadId: lead.id, type: 'LeadActivity::Note', data: { body: 'from the territory' } },
  });
  expect(note.body.errors).toBeUndefined();
  // The sales associate works at the other store: not this lead's.
  await api(t, 'post', '/v1/lead_activities', { key: users.salesAssociate.key, body: { lead_activity: { lead_id: lead.id, type: 'LeadActivity::Note' } } });
  expect(await answered()).toBeNull();
  expect(await stats()).toMatchObject({ received: 1, answered: 0 });

  expect((await api(t, 'post', '/v1/lead_activities', { key: users.storeManager.key, body: { lead_activity: { lead_id: lead.id, type: 'LeadActivity::OutboundCall' } } })).status).toBe(201);
  expect(await answered()).not.toBeNull();
  expect(await stats()).toMatchObject({ received: 1, answered: 1 });

  const second = await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
  const res = await gql(t, users.locationUser.key, `mutation($id: ID!) { updateLead(id: $id, input: { status: "Contacted" }) { id } }`, { id: second.id });
  expect(res.body.errors).toBeUndefined();
  expect((await sql(`select answered_at from lead_response_timers where lead_id = ?`, [second.id]))[0].answered_at).not.toBeNull();
});

test("many concurrent requests of one organisation are bounded, no 5xx, and another organisation's stats still answer", async () => {
  const { net, other, users } = await roles(em());
  await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  await createLead(t, users.otherAdmin.key, quoteRequest({ assignee_id: other.storeNorth.id }));
  const burst = Array.from({ length: 40 }, (_, i) => gql(t, users.companyAdmin.key, STATS, { groupBy: i % 2 ? ['STORE', 'WEEK'] : null }));
  const started = Date.now();
  const theirs = await gql(t, users.otherAdmin.key, STATS);
  const theirsMs = Date.now() - started;
  expect(theirs.status).toBe(200);
  expect(theirs.body.data.leadResponseStats[0].received).toBe(1);
  const results = await Promise.all(burst);
  expect(results.every((r) => r.status < 500)).toBe(true);
  const limited = results.filter((r) => r.body.errors);
  expect(limited.every((r) => r.body.errors[0].extensions.code === 'RATE_LIMITED')).toBe(true);
  // How many are refused depends on how fast the first ones finish; the bound itself is tested below.
  expect(limited.length).toBeLessThanOrEqual(40 - STATS_RUNNING_PER_ORGANISATION);
  expect(results.filter((r) => !r.body.errors).every((r) => Array.isArray(r.body.data.leadResponseStats))).toBe(true);
  // The other brand did not wait for the burst to drain.
  expect(theirsMs).toBeLessThan(30_000);
  // And the organisation recovers once the burst is over.
  expect((await gql(t, users.companyAdmin.key, STATS)).body.errors).toBeUndefined();
});

test('the statistics share runs 2 at once per organisation, queues 16, refuses the next, and leaves other organisations alone', async () => {
  const lanes = {
    async run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const release = await statsShare.enter(key);
      try {
        return await work();
      } finally {
        release();
      }
    },
  };
  const releases: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const held = () => lanes.run('brand', () => new Promise<string>((resolve) => {
    running++;
    most = Math.max(most, running);
    releases.push(() => { running--; resolve('done'); });
  }));
  const accepted = Array.from({ length: STATS_RUNNING_PER_ORGANISATION + STATS_WAITING_PER_ORGANISATION }, held);
  await expect(held()).rejects.toMatchObject({ extensions: { code: 'RATE_LIMITED' } });
  expect(await lanes.run('another brand', async () => 'answered')).toBe('answered');
  expect(running).toBe(STATS_RUNNING_PER_ORGANISATION);
  while (releases.length || running) {
    await new Promise((r) => setImmediate(r));
    releases.shift()?.();
  }
  expect(await Promise.all(accepted)).toEqual(accepted.map(() => 'done'));
  expect(most).toBe(STATS_RUNNING_PER_ORGANISATION);
  expect(await lanes.run('brand', async () => 'again')).toBe('again');
});

test('hostile where and groupBy: deep nesting, huge lists, wrong types are client errors, never a 5xx', async () => {
  const { users } = await roles(em());
  const key = users.companyAdmin.key;
  let deep: any = { createdAt: { gte: '2026-01-01' } };
  for (let i = 0; i < 200; i++) deep = { _and: [deep] };
  const cases = [
    { where: deep },
    { where: { _or: Array.from({ length: 5000 }, () => ({ createdAt: { gte: '2026-01-01' } })) } },
    { where: { createdAt: { gte: '2026-01-01', gt: '2026-01-02', lt: '2026-02-01', lte: '2026-03-01' } } },
    { where: { createdAt: { gte: '10000-01-01' } } },
    { where: { createdAt: { gte: 12 } } },
    { where: { status: { in: Array.from({ length: 20000 }, (_, i) => `s${i}`) } } },
    { groupBy: Array.from({ length: 100000 }, () => 'WEEK') },
    { groupBy: [null] },
    { groupBy: { STORE: true } },
    { where: 'createdAt > 2026' },
  ];
  for (const variables of cases) {
    const res = await gql(t, key, STATS, variables as Record<string, unknown>);
    expect([JSON.stringify(variables).slice(0, 80), res.status < 500]).toEqual([JSON.stringify(variables).slice(0, 80), true]);
    if (res.body.errors) expect(res.body.errors[0].extensions?.code).not.toBe('INTERNAL_SERVER_ERROR');
  }
});

describe('back-fill', () => {
  const BEFORE = 'Migration20261126170100_response_timers';
  let name: string;
  let orm: MikroORM;
  let db: Client;
  afterAll(async () => {
    await db?.end();
    await orm?.close();
    const admin = new Client({ connectionString: withDatabase(process.env.LEADNET_TEST_SERVER_URL!, 'postgres') });
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });

  test('migrating a database that holds leads fills the facts, the rollup and the store weeks from them, then keeps them', async () => {
    const server = process.env.LEADNET_TEST_SERVER_URL!;
    name = `leadnet_stats_backfill_${randomBytes(6).toString('hex')}`;
    const admin = new Client({ connectionString: withDatabase(server, 'postgres') });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = withDatabase(server, name);
    orm = await MikroORM.init(ormConfig(url, { debug: false }));
    await orm.getMigrator().up({ to: BEFORE });
    db = new Client({ connectionString: url });
    await db.connect();
    const q = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows;
    const [company] = await q(`insert into companies (name) values ('Backfill brand') returning id`);
    const [seller] = await q(`insert into retailers (name) values ('Backfill dealer') returning id`);
    const [cr] = await q(`insert into company_retailers (company_id, retailer_id) values ($1, $2) returning id`, [company.id, seller.id]);
    const stores = await q(`insert into company_retailer_locations (company_id, company_retailer_id) select $1, $2 from generate_series(1, 3) returning id`, [company.id, cr.id]);
    // 200 leads over 10 weeks, assigned by the triggers of the time (timers start), then answered or breached.
    await q(`insert into leads (name, status, owner_company_id, assignee_id, created_at)
             select 'Lead ' || i, (array['New', 'Won', 'Lost', 'Contacted'])[1 + i % 4], $1, ($2::uuid[])[1 + i % 3], now() - (i * 8) * interval '1 hour'
               from generate_series(1, 200) i`, [company.id, stores.map((s: any) => s.id)]);
    await q(`update lead_response_timers t set first_assigned_at = l.created_at, assigned_at = l.created_at,
               answered_at = case when hashtext(l.name) % 3 <> 0 then l.created_at + (abs(hashtext(l.name)) % 5000) * interval '1 second' end,
               breached_at = case when hashtext(l.name) % 3 = 0 then l.created_at + interval '4 hours' end
               from leads l where l.id = t.lead_id`);
    const [{ n }] = await q(`select count(*)::int as n from lead_response_timers`);
    expect(n).toBe(200);

    await orm.getMigrator().up();
    const expectedRollup = await q(`
      select l.owner_company_id, l.assignee_company_id, date_trunc('week', l.created_at at time zone 'UTC')::date as created_week,
             date_trunc('week', t.first_assigned_at at time zone 'UTC')::date as assigned_week,
             leadnet_response_bucket(extract(epoch from t.answered_at - t.assigned_at)::float8) as bucket, count(*)::int as received,
             (count(*) filter (where t.breached_at is not null))::int as breaches, (count(*) filter (where lower(l.status) = 'won'))::int as won,
             (count(*) filter (where lower(l.status) = 'lost'))::int as lost
        from leads l join lead_response_timers t on t.lead_id = l.id group by 1, 2, 3, 4, 5 order by 3, 4, 5 nulls last`);
    const rollup = await q(`select owner_company_id, assignee_company_id, created_week, assigned_week, bucket, received, breaches, won, lost
                              from lead_response_rollups order by 3, 4, 5 nulls last`);
    expect(rollup).toEqual(expectedRollup);
    expect(rollup.length).toBeGreaterThan(10);
    expect((await q(`select count(*)::int as n from lead_response_facts`))[0].n).toBe(200);
    // The store weeks too: the rows of each year's last week hold the year's totals, per store.
    const yearTotals = `select count(*)::int as stores, sum(received)::int as received, sum(won)::int as won, sum(lost)::int as lost
                          from lead_response_store_weeks where week = date_trunc('week', make_date(extract(year from week)::int, 12, 31))::date`;
    const [filled] = await q(yearTotals);
    expect([filled.received, filled.won, filled.lost]).toEqual([200, 50, 50]);
    expect(filled.stores).toBeGreaterThanOrEqual(3);
    // Kept from then on: a status change moves a lead from one outcome to the other.
    await q(`update leads set status = 'Won' where status = 'Lost'`);
    const [{ won, lost }] = await q(`select sum(won)::int as won, sum(lost)::int as lost from lead_response_rollups`);
    expect([won, lost]).toEqual([100, 0]);
    const [kept] = await q(yearTotals);
    expect([kept.received, kept.won, kept.lost]).toEqual([200, 100, 0]);
  });
});
