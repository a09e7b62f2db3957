import { ArgsType, Field, Float, ID, Int, ObjectType, registerEnumType, type ClassType } from 'type-graphql';
import { getMetadataStorage } from 'type-graphql';
import type { Context } from '../../context';
import { AppError } from '../../errors';
import { statsRows } from './response-time.repository';
import { listInputs, ListOptions } from '../../search/list-args';
import { coerce, compileScope, compileWhere } from '../../search/where';
import { hiddenFields } from '../../search/list';
import { fromClause, type SearchDocument, type Sql, type Where } from '../../search/types';
import { leadSearch } from '../lead/lead.search';
import { leadScope } from '../lead/lead.policy';
import { readsOnly, weekStart, wholeWeeks } from '../lead/lead-created-weeks';
import { FairShare, shareKey } from '../../http/fair-share';

export enum ResponseStatsGroup {
  STORE = 'store',
  TERRITORY = 'territory',
  RETAILER = 'retailer',
  WEEK = 'week',
}
registerEnumType(ResponseStatsGroup, {
  name: 'ResponseStatsGroup',
  description: 'One way to group the response-time figures.',
  valuesConfig: {
    STORE: { description: "The lead's store now." },
    TERRITORY: { description: "The territory of the lead's store." },
    RETAILER: { description: "The retailer of the lead's store." },
    WEEK: { description: 'The ISO week (Monday, UTC) of the lead\'s first assignment.' },
  },
});

/** The lead list's own typed filter (`LeadWhere`), so the stats filter exactly as `leads(where:)` does. */
function leadWhereType(): ClassType {
  const { FilterArgs } = listInputs(leadSearch, 'Lead');
  const field = getMetadataStorage().fields.find((f) => f.target === FilterArgs && f.name === 'where');
  return field!.getType() as ClassType;
}

@ArgsType()
export class LeadResponseStatsArgs {
  @Field(() => leadWhereType(), { nullable: true, description: 'The lead list\'s filter (`LeadWhere`), e.g. `{ createdAt: { gte: "2026-01-01" } }`.' })
  where?: unknown;

  @Field(() => [ResponseStatsGroup], { nullable: true, description: 'Up to 4 distinct groupings; none: one row for everything.' })
  groupBy?: ResponseStatsGroup[] | null;
}

@ObjectType({ description: 'First-response figures of the leads in one group (docs/response-times.md).' })
export class LeadResponseStatsRow {
  @Field(() => ID, { nullable: true, description: 'The store of the group (with `groupBy: STORE`); null otherwise.' })
  storeId!: string | null;

  @Field(() => ID, { nullable: true, description: "The territory of the group's store (with `groupBy: TERRITORY`); null otherwise or for a store outside every territory." })
  territoryId!: string | null;

  @Field(() => ID, { nullable: true, description: "The retailer of the group's store (with `groupBy: RETAILER`); null otherwise." })
  retailerId!: string | null;

  @Field(() => String, { nullable: true, description: 'The Monday (UTC) starting the week, `YYYY-MM-DD`.' })
  week!: string | null;

  @Field(() => Int, { description: 'Leads assigned to a store.' })
  received!: number;

  @Field(() => Int, { description: 'Of them, answered (a status change or an activity after the assignment).' })
  answered!: number;

  @Field(() => Float, { nullable: true, description: 'Median seconds from assignment to first response, over the answered ones (nearest rank, from log-scale buckets: within 5%, docs/response-times.md).' })
  medianFirstResponseSeconds!: number | null;

  @Field(() => Float, { nullable: true, description: '90th percentile of the same (nearest rank, within 5%).' })
  p90FirstResponseSeconds!: number | null;

  @Field(() => Int, { description: 'First-response times that passed unanswered.' })
  breaches!: number;

  @Field(() => Int, { description: 'Leads whose status is `Won` (any case).' })
  won!: number;

  @Field(() => Int, { description: 'Leads whose status is `Lost` (any case).' })
  lost!: number;
}

/** A lead's first-response facts (Migration20261127130000_response_stats), as its scope and `createdAt` read them. */
const FACT_FIELDS = ['owner_company_id', 'owner_retailer_id', 'assignee_id', 'assignee_company_id', 'assignee_territory_id',
  'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id', 'assignee_company_beyond_owner_id',
  'assignee_retailer_beyond_owner_id', 'territory_id', 'created_at'];
const factSearch: SearchDocument = {
  name: 'lead_response_facts',
  from: 'lead_response_facts f',
  alias: 'f',
  fields: Object.fromEntries(FACT_FIELDS.map((name) => {
    const field = leadSearch.fields[name];
    return [name, { ...field, sql: field.sql.replace(/\bl\./g, 'f.') }];
  })),
};
/** The company rollup (same migration): a company admin's scope arms and nothing else. */
const ROLLUP_FIELDS = ['owner_company_id', 'assignee_company_beyond_owner_id'];
const rollupSearch: SearchDocument = {
  name: 'lead_response_rollups',
  from: 'lead_response_rollups r',
  alias: 'r',
  fields: Object.fromEntries(ROLLUP_FIELDS.map((name) => [name, { ...leadSearch.fields[name], sql: leadSearch.fields[name].sql.replace(/\bl\./g, 'r.') }])),
};

/** The store weeks (Migration20261128100000_response_store_stats): the same arms, running totals per store within a year. */
const storeWeeksSearch: SearchDocument = { ...rollupSearch, name: 'lead_response_store_weeks', from: 'lead_response_store_weeks r' };
/** At most this many calendar years in one range read from the store weeks (two rows per store and year at most). */
const MAX_STORE_WEEK_YEARS = 10;

const GROUP_COLUMN: Record<ResponseStatsGroup, { fact: string; as: string }> = {
  [ResponseStatsGroup.STORE]: { fact: 'assignee_id', as: 'store_id' },
  [ResponseStatsGroup.TERRITORY]: { fact: 'assignee_territory_id', as: 'territory_id' },
  [ResponseStatsGroup.RETAILER]: { fact: 'assignee_retailer_id', as: 'retailer_id' },
  [ResponseStatsGroup.WEEK]: { fact: 'assigned_week', as: 'week' },
};
const MAX_GROUPS = 4;
const MAX_ROWS = 5000;
/** Histogram buckets: bucket 0 is under a second, bucket b >= 1 is [1.1^(b-1), 1.1^b) seconds. */
const BUCKET_RATIO = 1.1;
const DAY_MS = 86_400_000;

/** The seconds a percentile's bucket stands for: its geometric middle (within 4.9% of any value in it), 0 under a second. */
export function bucketSeconds(bucket: number | null): number | null {
  if (bucket === null) return null;
  return bucket === 0 ? 0 : Math.round(Math.pow(BUCKET_RATIO, bucket - 0.5) * 1000) / 1000;
}



const dayOf = (ms: number) => iso(ms).slice(0, 10);
/** The Monday of the last week whose Monday is in year `year` (UTC). */
const lastWeekOfYear = (year: number) => weekStart(Date.UTC(year, 11, 31));

/**
 * The store-week rows whose difference is the whole weeks `[from, to)`: per calendar year of the weeks'
 * Mondays, the running total at the range's last week in that year (`plus`), minus the one at the week
 * before the range when the range starts inside a year (`minus`). Null beyond MAX_STORE_WEEK_YEARS.
 */
function storeWeekRows(weeks: { from: number; to: number }): { plus: string[]; minus: string[] } | null {
  if (!Number.isFinite(weeks.from) || !Number.isFinite(weeks.to) || weeks.from >= weeks.to) return null;
  const first = new Date(weeks.from).getUTCFullYear();
  const lastWeek = weeks.to - 7 * DAY_MS;
  const last = new Date(lastWeek).getUTCFullYear();
  if (last - first + 1 > MAX_STORE_WEEK_YEARS) return null;
  const plus: string[] = [];
  for (let year = first; year <= last; year++) plus.push(dayOf(year === last ? lastWeek : lastWeekOfYear(year)));
  const before = weeks.from - 7 * DAY_MS;
  return { plus, minus: new Date(before).getUTCFullYear() === first ? [dayOf(before)] : [] };
}

/**
 * The last Monday of each calendar year whose weeks can hold a lead of a filter keeping `weeks` (its
 * first and last days may be in the weeks around them); null when unbounded or beyond MAX_STORE_WEEK_YEARS.
 */
function spannedYears(weeks: { from: number; to: number }): string[] | null {
  if (!Number.isFinite(weeks.from) || !Number.isFinite(weeks.to)) return null;
  const first = new Date(weeks.from - 7 * DAY_MS).getUTCFullYear();
  const last = new Date(weeks.to).getUTCFullYear();
  if (last - first + 1 > MAX_STORE_WEEK_YEARS) return null;
  return Array.from({ length: last - first + 1 }, (_, i) => dayOf(lastWeekOfYear(first + i)));
}

/** A group's figures summed from parts: a histogram of answered leads by bucket. */
interface Tally { keys: (string | null)[]; received: number; breaches: number; won: number; lost: number; histogram: number[] }

/** Nearest rank (as `percentile_disc`): the first bucket whose running count reaches `num / den` of `answered`. */
function rankBucket(histogram: number[], answered: number, num: number, den: number): number | null {
  if (answered <= 0) return null;
  let running = 0;
  for (let b = 0; b < histogram.length; b++) {
    running += histogram[b] ?? 0;
    if (running * den >= answered * num) return b;
  }
  return null;
}

/** Ascending, nulls last, as the statement's `order by ... nulls last` (uuids compare as their lower-case text). */
function compareKeys(a: (string | null)[], b: (string | null)[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === null) return 1;
    if (b[i] === null) return -1;
    return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

/** SQL pieces with `?` bindings, joined in order. */
class Statement {
  sql = '';
  bindings: unknown[] = [];
  add(part: string | Sql): this {
    if (typeof part === 'string') this.sql += part;
    else {
      this.sql += part.sql;
      this.bindings.push(...part.bindings);
    }
    return this;
  }
}
const anyOf = (parts: Sql[]): Sql => (parts.length === 0 ? { sql: 'false', bindings: [] } : {
  sql: parts.map((p) => `(${p.sql})`).join(' or '),
  bindings: parts.flatMap((p) => p.bindings),
});
const emptyRow = (): LeadResponseStatsRow => ({
  storeId: null, territoryId: null, retailerId: null, week: null, received: 0, answered: 0,
  medianFirstResponseSeconds: null, p90FirstResponseSeconds: null, breaches: 0, won: 0, lost: 0,
});
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Response-time figures over the leads the caller's lead list would show for `where` (the same scope,
 * `leadScope`, and the same typed filter), that were assigned to a store, grouped as asked. Read from
 * the kept facts and, for a company admin's range of `createdAt`, from the company rollup (no grouping
 * or by week) or the store weeks (by store, territory, retailer), or store by store (by store then
 * week) (docs/response-times.md "Which path answers"); percentiles from log-scale buckets.
 */
export async function leadResponseStats(ctx: Context, args: LeadResponseStatsArgs): Promise<LeadResponseStatsRow[]> {
  const release = await statsShare.enter(shareKey(ctx.caller!));
  try {
    return await computeStats(ctx, args);
  } finally {
    release();
  }
}

/**
 * Within the organisation's share of the process (src/http/fair-share.ts), a narrower one for these
 * statements: per organisation at most 2 at once and 16 more waiting, beyond that RATE_LIMITED. A
 * dashboard refreshed by many users of one brand then holds at most 2 pooled connections for them.
 */
export const STATS_RUNNING_PER_ORGANISATION = 2;
export const STATS_WAITING_PER_ORGANISATION = 16;
export const statsShare = new FairShare({ inFlight: STATS_RUNNING_PER_ORGANISATION, queue: STATS_WAITING_PER_ORGANISATION, waitMs: 30_000 });

async function computeStats(ctx: Context, args: LeadResponseStatsArgs): Promise<LeadResponseStatsRow[]> {
  const groups = [...new Set(args.groupBy ?? [])];
  if (groups.length > MAX_GROUPS) throw new AppError('BAD_USER_INPUT', `groupBy takes at most ${MAX_GROUPS} distinct groupings`);
  const where = new ListOptions(leadSearch, hiddenFields(leadSearch, ctx.caller)).where(args.where);
  const scope = leadScope(ctx.caller!);
  const arms: Where[] = Array.isArray(scope._or) && Object.keys(scope).length === 1 ? (scope._or as Where[]) : [scope];
  // Arms a fact answers alone (the assignee's and owner's keys) and the others (the caller's own leads).
  const factArms = arms.filter((a) => readsOnly(a, FACT_FIELDS));
  const leadArms = arms.filter((a) => !factArms.includes(a));
  const whereOnFacts = readsOnly(where, FACT_FIELDS);
  const weeks = wholeWeeks(where);
  const rollup = factArms.length > 0 && whereOnFacts && weeks !== null && weeks.from < weeks.to
    && factArms.every((a) => readsOnly(a, ROLLUP_FIELDS)) && groups.every((g) => g === ResponseStatsGroup.WEEK);

  const columns = groups.map((g) => GROUP_COLUMN[g]);
  const span = weeks === null ? null : storeWeekRows(weeks);
  if (factArms.length > 0 && whereOnFacts && span !== null && factArms.every((a) => readsOnly(a, ROLLUP_FIELDS))
    && groups.length > 0 && !groups.includes(ResponseStatsGroup.WEEK)) {
    return storeWeeksStats(ctx, { columns, factArms, leadArms, where, weeks: weeks!, span });
  }
  const years = weeks === null ? null : spannedYears(weeks);
  if (factArms.length > 0 && whereOnFacts && years !== null && factArms.every((a) => readsOnly(a, ROLLUP_FIELDS))
    && groups.length === 2 && groups[0] === ResponseStatsGroup.STORE && groups[1] === ResponseStatsGroup.WEEK) {
    return storeByStoreStats(ctx, { factArms, leadArms, where, years });
  }
  const keysOf = (alias: string) => columns.map((c) => `${alias}.${c.fact} as ${c.as}, `).join('');
  // Without the rollup every part is one row per lead, aggregated once; with it, parts are summed by bucket.
  const factPart = (condition: Statement): Statement => (rollup
    ? new Statement()
      .add(`select ${keysOf('f')}f.bucket, count(*)::int, coalesce(sum(f.breaches), 0)::int, count(*) filter (where f.won)::int,
              count(*) filter (where f.lost)::int from lead_response_facts f `)
      .add(condition)
      .add(` group by ${[...columns.map((c) => `f.${c.fact}`), 'f.bucket'].join(', ')}`)
    : new Statement()
      .add(`select ${keysOf('f')}f.bucket, 1, f.breaches, f.won::int, f.lost::int from lead_response_facts f `)
      .add(condition));
  const parts: Statement[] = [];
  const compile = (doc: SearchDocument, w: Where | null) => (w ? compileWhere(doc, w) : { sql: 'true', bindings: [] });
  const factScope = anyOf(factArms.map((a) => compileScope(factSearch, a)));
  if (whereOnFacts && factArms.length) {
    const filter = compile(factSearch, where);
    if (rollup) {
      // Whole weeks from the rollup, the days of the filter outside them from the facts.
      const rollupScope = anyOf(factArms.map((a) => compileScope(rollupSearch, a)));
      const range: string[] = [];
      const bindings: unknown[] = [];
      if (Number.isFinite(weeks!.from)) { range.push('r.created_week >= ?::date'); bindings.push(iso(weeks!.from).slice(0, 10)); }
      if (Number.isFinite(weeks!.to)) { range.push('r.created_week < ?::date'); bindings.push(iso(weeks!.to).slice(0, 10)); }
      parts.push(new Statement()
        .add(`select ${keysOf('r')}r.bucket, sum(r.received)::int, sum(r.breaches)::int, sum(r.won)::int, sum(r.lost)::int
                from lead_response_rollups r where (`)
        .add(rollupScope)
        .add({ sql: `)${range.map((r) => ` and ${r}`).join('')}`, bindings })
        .add(` group by ${[...columns.map((c) => `r.${c.fact}`), 'r.bucket'].join(', ')}`));
      for (const [edge, at] of [['<', weeks!.from], ['>=', weeks!.to]] as const) {
        if (!Number.isFinite(at)) continue;
        parts.push(factPart(new Statement().add('where (').add(factScope).add(') and (').add(filter)
          .add({ sql: `) and f.created_at ${edge} ?::timestamptz`, bindings: [iso(at)] })));
      }
    } else {
      parts.push(factPart(new Statement().add('where (').add(factScope).add(') and (').add(filter).add(')')));
    }
  }
  // The caller's own leads beyond the other arms, or everything when the filter reads more of the lead.
  const leadCondition = whereOnFacts ? leadArms : arms;
  if (leadCondition.length) {
    const leadScopeSql = anyOf(leadCondition.map((a) => compileScope(leadSearch, a)));
    const filter = compile(leadSearch, where);
    const condition = new Statement()
      .add(`join (select l.id from ${fromClause(leadSearch, leadScopeSql.sql, filter.sql)} where (`).add(leadScopeSql).add(') and (').add(filter).add(')');
    if (whereOnFacts && factArms.length) condition.add(' and not coalesce(').add(anyOf(factArms.map((a) => compileScope(leadSearch, a)))).add(', false)');
    condition.add(') l on l.id = f.lead_id');
    parts.push(factPart(condition));
  }
  if (!parts.length) return keysOf('f') ? [] : [emptyRow()];

  const keys = columns.map((c) => c.as);
  const partition = keys.length ? `partition by ${keys.join(', ')} ` : '';
  const statement = new Statement().add(`with u (${[...keys, 'bucket', 'received', 'breaches', 'won', 'lost'].join(', ')}) as (`);
  parts.forEach((p, i) => statement.add(i ? ' union all ' : '').add(p));
  const select = keys.map((k) => (k === 'week' ? `to_char(week, 'YYYY-MM-DD') as week, ` : `${k}, `)).join('');
  const grouped = keys.length ? `group by ${keys.join(', ')} order by ${keys.map((k) => `${k} nulls last`).join(', ')}` : '';
  if (rollup) {
    statement.add(`), g as (
      select ${keys.map((k) => `${k}, `).join('')}bucket, sum(received) as n, sum(breaches) as breaches, sum(won) as won, sum(lost) as lost
        from u group by ${[...keys, 'bucket'].join(', ')}
    ), c as (
      select g.*, sum(n) filter (where bucket is not null) over (${partition}order by bucket rows between unbounded preceding and current row) as cum,
             sum(n) filter (where bucket is not null) over (${partition.trim()}) as answered
        from g
    )
    select ${select}coalesce(sum(n), 0)::int as received, coalesce(max(answered), 0)::int as answered,
           min(bucket) filter (where bucket is not null and cum >= 0.5 * answered) as p50,
           min(bucket) filter (where bucket is not null and cum >= 0.9 * answered) as p90,
           coalesce(sum(breaches), 0)::int as breaches, coalesce(sum(won), 0)::int as won, coalesce(sum(lost), 0)::int as lost
      from c ${grouped} limit ${MAX_ROWS}`);
  } else {
    // percentile_disc: the first bucket whose running share reaches the fraction (nearest rank), as above.
    statement.add(`)
    select ${select}count(*)::int as received, count(bucket)::int as answered,
           percentile_disc(0.5) within group (order by bucket) as p50, percentile_disc(0.9) within group (order by bucket) as p90,
           coalesce(sum(breaches), 0)::int as breaches, coalesce(sum(won), 0)::int as won, coalesce(sum(lost), 0)::int as lost
      from u ${grouped} limit ${MAX_ROWS}`);
  }
  const rows = await statsRows(ctx.em, statement);
  return rows.map((r) => ({
      storeId: r.store_id ?? null,
      territoryId: r.territory_id ?? null,
      retailerId: r.retailer_id ?? null,
      week: r.week ?? null,
      received: r.received,
      answered: r.answered,
      medianFirstResponseSeconds: bucketSeconds(r.p50 ?? null),
      p90FirstResponseSeconds: bucketSeconds(r.p90 ?? null),
      breaches: r.breaches,
      won: r.won,
      lost: r.lost,
    }));
}

/**
 * Grouped by store, territory or retailer (no week) for a company admin's whole weeks: the store weeks'
 * running totals (two rows per store and year at most) plus the days of the filter outside the whole
 * weeks and the caller's own leads beyond the arms, from the facts; summed and ranked here, so the
 * statement returns about one row per store instead of one per lead. Same figures as the facts path.
 */
async function storeWeeksStats(ctx: Context, p: {
  columns: { fact: string; as: string }[]; factArms: Where[]; leadArms: Where[]; where: Where | null;
  weeks: { from: number; to: number }; span: { plus: string[]; minus: string[] };
}): Promise<LeadResponseStatsRow[]> {
  const keys = (alias: string) => p.columns.map((c) => `${alias}.${c.fact}, `).join('');
  const byKeys = (alias: string) => p.columns.map((c) => `${alias}.${c.fact}`).join(', ');
  const factCounts = `f.bucket, count(*)::int, count(f.bucket)::int, coalesce(sum(f.breaches), 0)::int,
    count(*) filter (where f.won)::int, count(*) filter (where f.lost)::int, null::text`;
  // Date lists as array literals (knex would spread a bound array into a list of parameters).
  const dates = (list: string[]) => `{${list.join(',')}}`;
  const statement = new Statement()
    .add({
      sql: `select ${keys('r')}case when r.week = any(?::date[]) then 1 else -1 end as sign, null::smallint as bucket, r.received, r.answered,
              r.breaches, r.won, r.lost, r.histogram::text as histogram
              from lead_response_store_weeks r where (`,
      bindings: [dates(p.span.plus)],
    })
    .add(anyOf(p.factArms.map((a) => compileScope(storeWeeksSearch, a))))
    .add({ sql: ') and r.week = any(?::date[])', bindings: [dates([...p.span.plus, ...p.span.minus])] });
  const factScope = anyOf(p.factArms.map((a) => compileScope(factSearch, a)));
  const filter = p.where ? compileWhere(factSearch, p.where) : { sql: 'true', bindings: [] };
  for (const [edge, at] of [['<', p.weeks.from], ['>=', p.weeks.to]] as const) {
    statement.add(` union all select ${keys('f')}1, ${factCounts} from lead_response_facts f where (`).add(factScope).add(') and (').add(filter)
      .add({ sql: `) and f.created_at ${edge} ?::timestamptz group by ${byKeys('f')}, f.bucket`, bindings: [iso(at)] });
  }
  if (p.leadArms.length) {
    // The caller's own leads beyond the other arms, as the facts path reads them.
    const leadScopeSql = anyOf(p.leadArms.map((a) => compileScope(leadSearch, a)));
    const leadFilter = p.where ? compileWhere(leadSearch, p.where) : { sql: 'true', bindings: [] };
    statement.add(` union all select ${keys('f')}1, ${factCounts} from lead_response_facts f join (select l.id from ${fromClause(leadSearch, leadScopeSql.sql, leadFilter.sql)} where (`)
      .add(leadScopeSql).add(') and (').add(leadFilter).add(') and not coalesce(')
      .add(anyOf(p.factArms.map((a) => compileScope(leadSearch, a))))
      .add(`, false)) l on l.id = f.lead_id group by ${byKeys('f')}, f.bucket`);
  }
  const rows = await statsRows(ctx.em, statement);
  const tallies = new Map<string, Tally>();
  for (const r of rows) {
    const groupKeys = p.columns.map((c) => (r[c.fact] ?? null) as string | null);
    const id = JSON.stringify(groupKeys);
    let t = tallies.get(id);
    if (!t) tallies.set(id, (t = { keys: groupKeys, received: 0, breaches: 0, won: 0, lost: 0, histogram: [] }));
    const sign: number = r.sign;
    t.received += sign * r.received;
    t.breaches += sign * r.breaches;
    t.won += sign * r.won;
    t.lost += sign * r.lost;
    // `{1,0,3}` as text: the driver's int[] parser costs about 0.2 ms per row, JSON.parse a fraction of it.
    if (r.histogram) (JSON.parse(`[${r.histogram.slice(1, -1)}]`) as number[]).forEach((n, b) => { t!.histogram[b] = (t!.histogram[b] ?? 0) + sign * n; });
    else if (r.bucket !== null) t.histogram[r.bucket] = (t.histogram[r.bucket] ?? 0) + r.answered;
  }
  return [...tallies.values()]
    .filter((t) => t.received > 0)
    .sort((a, b) => compareKeys(a.keys, b.keys))
    .slice(0, MAX_ROWS)
    .map((t) => {
      const answered = t.histogram.reduce((n, c) => n + (c ?? 0), 0);
      const row = emptyRow();
      p.columns.forEach((c, i) => { (row as any)[c.as === 'store_id' ? 'storeId' : c.as === 'territory_id' ? 'territoryId' : 'retailerId'] = t.keys[i]; });
      return {
        ...row, received: t.received, answered, breaches: t.breaches, won: t.won, lost: t.lost,
        medianFirstResponseSeconds: bucketSeconds(rankBucket(t.histogram, answered, 1, 2)),
        p90FirstResponseSeconds: bucketSeconds(rankBucket(t.histogram, answered, 9, 10)),
      };
    });
}

/**
 * Grouped by store then week for a company admin's bounded range: at most MAX_ROWS groups in store order,
 * so the stores are walked in order (the store weeks' year-end rows list the stores with facts in those
 * years) and each store's facts read by the store's index, until the rows are enough: about the first
 * MAX_ROWS / 53 stores' leads for a year, not the company's. The same statement and figures as the
 * facts path otherwise (percentile_disc over the same buckets).
 */
async function storeByStoreStats(ctx: Context, p: { factArms: Where[]; leadArms: Where[]; where: Where | null; years: string[] }): Promise<LeadResponseStatsRow[]> {
  const factScope = anyOf(p.factArms.map((a) => compileScope(factSearch, a)));
  const filter = p.where ? compileWhere(factSearch, p.where) : { sql: 'true', bindings: [] };
  const ownLeads = (): Statement => {
    const leadScopeSql = anyOf(p.leadArms.map((a) => compileScope(leadSearch, a)));
    const leadFilter = p.where ? compileWhere(leadSearch, p.where) : { sql: 'true', bindings: [] };
    return new Statement().add(`join (select l.id from ${fromClause(leadSearch, leadScopeSql.sql, leadFilter.sql)} where (`)
      .add(leadScopeSql).add(') and (').add(leadFilter).add(') and not coalesce(')
      .add(anyOf(p.factArms.map((a) => compileScope(leadSearch, a))))
      .add(', false)) l on l.id = f.lead_id');
  };
  const figures = `count(*)::int as received, count(u.bucket)::int as answered,
    percentile_disc(0.5) within group (order by u.bucket) as p50, percentile_disc(0.9) within group (order by u.bucket) as p90,
    coalesce(sum(u.breaches), 0)::int as breaches, count(*) filter (where u.won)::int as won, count(*) filter (where u.lost)::int as lost`;
  const facts = (store: string): Statement => {
    const part = new Statement()
      .add(`select f.assigned_week, f.bucket, f.breaches, f.won, f.lost from lead_response_facts f where ${store} and (`)
      .add(factScope).add(') and (').add(filter).add(')');
    if (p.leadArms.length) part.add(` union all select f.assigned_week, f.bucket, f.breaches, f.won, f.lost from lead_response_facts f `).add(ownLeads()).add(` where ${store}`);
    return part;
  };
  const stores = new Statement()
    .add(`select distinct r.assignee_id as id from lead_response_store_weeks r where (`)
    .add(anyOf(p.factArms.map((a) => compileScope(storeWeeksSearch, a))))
    .add({ sql: ') and r.week = any(?::date[]) and r.assignee_id is not null', bindings: [`{${p.years.join(',')}}`] });
  if (p.leadArms.length) stores.add(' union select f.assignee_id from lead_response_facts f ').add(ownLeads()).add(' where f.assignee_id is not null');
  const statement = new Statement()
    .add(`(select s.id as store_id, g.week, g.received, g.answered, g.p50, g.p90, g.breaches, g.won, g.lost
             from (select id from (`).add(stores).add(`) x order by id) s
            cross join lateral (select to_char(u.assigned_week, 'YYYY-MM-DD') as week, ${figures}
                                  from (`).add(facts('f.assignee_id = s.id')).add(`) u group by u.assigned_week) g
            order by s.id, g.week limit ${MAX_ROWS})
     union all (select null, to_char(u.assigned_week, 'YYYY-MM-DD'), ${figures} from (`).add(facts('f.assignee_id is null')).add(') u group by u.assigned_week)');
  const rows = await statsRows(ctx.em, statement);
  return rows
    .sort((a, b) => compareKeys([a.store_id, a.week], [b.store_id, b.week]))
    .slice(0, MAX_ROWS)
    .map((r) => ({
      ...emptyRow(), storeId: r.store_id, week: r.week, received: r.received, answered: r.answered,
      medianFirstResponseSeconds: bucketSeconds(r.p50 ?? null), p90FirstResponseSeconds: bucketSeconds(r.p90 ?? null),
      breaches: r.breaches, won: r.won, lost: r.lost,
    }));
}
