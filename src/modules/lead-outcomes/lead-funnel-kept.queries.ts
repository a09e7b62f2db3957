import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import { compileScope, compileWhere } from '../../search/where';
import { fromClause, type SearchDocument, type Sql, type Where } from '../../search/types';
import { leadSearch } from '../lead/lead.search';
import { readsOnly, weekStart, wholeWeeks, WEEK_MS } from '../lead/lead-created-weeks';
import { DECLINE_REASONS, type FunnelRow } from './lead-funnel.queries';

/**
 * The funnel from the kept figures (Migration20261207000500_funnel_rollups, docs/lead-loop.md "How the
 * funnel is kept"): for a scope of company arms (a company admin's) and a filter on `createdAt` alone,
 * the whole weeks of the range come from the rollups and the days around them, and the caller's own
 * leads beyond the arms, from the facts; one statement sums them per group, the histograms are summed here.
 */

/** The company arms a rollup row answers alone. */
const ROLLUP_FIELDS = ['owner_company_id', 'assignee_company_beyond_owner_id'];
const onAlias = (alias: string, fields: string[]): SearchDocument['fields'] =>
  Object.fromEntries(fields.map((name) => [name, { ...leadSearch.fields[name], sql: leadSearch.fields[name].sql.replace(/\bl\./g, `${alias}.`) }]));
const rollupDoc = (from: string): SearchDocument => ({ name: from, from: `${from} r`, alias: 'r', fields: onAlias('r', ROLLUP_FIELDS) });
const factDoc = (from: string): SearchDocument => ({ name: from, from: `${from} f`, alias: 'f', fields: onAlias('f', [...ROLLUP_FIELDS, 'created_at']) });
const weeksDoc = rollupDoc('lead_funnel_weeks');
const yearsDoc = rollupDoc('lead_funnel_store_years');
const storeWeeksDoc = rollupDoc('lead_funnel_store_weeks');
const leadFactsDoc = factDoc('lead_funnel_facts');
const offerFactsDoc = factDoc('lead_funnel_offer_facts');

/** A group key of the kept path: its expression over a part row `u` (store `s`, company retailer `scr`) and its name. */
export type KeptKey = 'store' | 'territory' | 'retailer' | 'week' | 'source';
const KEY_SQL: Record<KeptKey, { sql: string; as: string }> = {
  store: { sql: 'u.store_id', as: 'store_id' },
  // A lead's territory and retailer are its own keys (its store's now); an offer's, its store's now.
  territory: { sql: "case when u.kind = 'o' then coalesce(s.territory_id, scr.territory_id) else u.territory_id end", as: 'territory_id' },
  retailer: { sql: "case when u.kind = 'o' then s.retailer_id else u.retailer_id end", as: 'retailer_id' },
  week: { sql: "to_char(u.week, 'YYYY-MM-DD')", as: 'week' },
  source: { sql: 'u.source_type', as: 'source' },
};
const STORE_KEYS: KeptKey[] = ['store', 'territory', 'retailer'];
const FIGURES = ['leads', 'contacted', 'won', 'lost', 'amount', 'offered', 'accepted', 'declined', 'expired', ...DECLINE_REASONS.map((r) => `declined_${r}`)];
const PART_COLUMNS = ['sign', 'week', 'source_type', 'kind', 'store_id', 'territory_id', 'retailer_id', 'currency', ...FIGURES, 'histogram', 'bucket'];

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const firstMonday = (y: number) => {
  const jan1 = Date.UTC(y, 0, 1);
  return weekStart(jan1) === jan1 ? jan1 : weekStart(jan1) + WEEK_MS;
};
const lastMonday = (y: number) => weekStart(Date.UTC(y, 11, 31));
const yearOf = (ms: number) => new Date(ms).getUTCFullYear();

/**
 * The store rows whose signed sum is the whole weeks `[from, to)`: the year rows (`years`, conditions on
 * `r.year`) of the years the range covers entirely; of a year it covers in part, its week rows in the
 * range (`plusWeeks`), or, when fewer, its year row minus its week rows outside the range (`minusWeeks`).
 */
export function storeRows(weeks: { from: number; to: number }): { years: Sql[]; plusWeeks: Sql[]; minusWeeks: Sql[] } {
  const years: Sql[] = [];
  const plusWeeks: Sql[] = [];
  const minusWeeks: Sql[] = [];
  const partial = (y: number, from: number, to: number) => {
    const total = Math.round((lastMonday(y) - firstMonday(y)) / WEEK_MS) + 1;
    const inside = Math.round((to - from) / WEEK_MS);
    if (inside === total) years.push({ sql: 'r.year = ?', bindings: [y] });
    else if (inside <= total - inside + 1) plusWeeks.push({ sql: 'r.week >= ?::date and r.week < ?::date', bindings: [day(from), day(to)] });
    else {
      years.push({ sql: 'r.year = ?', bindings: [y] });
      if (from > firstMonday(y)) minusWeeks.push({ sql: 'r.week >= ?::date and r.week < ?::date', bindings: [day(firstMonday(y)), day(from)] });
      if (to <= lastMonday(y)) minusWeeks.push({ sql: 'r.week >= ?::date and r.week < ?::date', bindings: [day(to), day(lastMonday(y) + WEEK_MS)] });
    }
  };
  const y1 = Number.isFinite(weeks.from) ? yearOf(weeks.from) : -Infinity;
  const y2 = Number.isFinite(weeks.to) ? yearOf(weeks.to - WEEK_MS) : Infinity;
  if (y1 === y2) {
    partial(y1, weeks.from, weeks.to);
    return { years, plusWeeks, minusWeeks };
  }
  // Whole years strictly between the partial ends (or from the unbounded side).
  let fullFrom = y1 + 1;
  let fullTo = y2 - 1;
  if (Number.isFinite(y1)) {
    if (weeks.from === firstMonday(y1)) fullFrom = y1;
    else partial(y1, weeks.from, lastMonday(y1) + WEEK_MS);
  }
  if (Number.isFinite(y2)) {
    if (weeks.to - WEEK_MS === lastMonday(y2)) fullTo = y2;
    else partial(y2, firstMonday(y2), weeks.to);
  }
  if (fullFrom <= fullTo) {
    const bounds: string[] = [];
    const bindings: unknown[] = [];
    if (Number.isFinite(fullFrom)) { bounds.push('r.year >= ?'); bindings.push(fullFrom); }
    if (Number.isFinite(fullTo)) { bounds.push('r.year <= ?'); bindings.push(fullTo); }
    years.push({ sql: bounds.length ? bounds.join(' and ') : 'true', bindings });
  }
  return { years, plusWeeks, minusWeeks };
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
const TRUE: Sql = { sql: 'true', bindings: [] };

/** The part rows of lead facts `f` and of offer facts `f` (PART_COLUMNS), each fact one row. */
const LEAD_FACT_PART = `select 1, f.created_week, f.source_type, 'l', f.assignee_id, f.assignee_territory_id, f.assignee_retailer_id, f.currency,
  1, f.contacted::int, f.won::int, f.lost::int, coalesce(f.amount_minor, 0), 0, 0, 0, 0, ${DECLINE_REASONS.map(() => '0').join(', ')}, '{}'::int[], null::smallint
  from lead_funnel_facts f`;
const OFFER_FACT_PART = `select 1, f.created_week, f.source_type, 'o', f.store_id, null::uuid, null::uuid, null::char(3),
  0, 0, 0, 0, 0, 1, (f.state = 'accepted')::int, (f.state = 'declined')::int, (f.state = 'expired')::int,
  ${DECLINE_REASONS.map((r) => `(f.decline_reason is not distinct from '${r}')::int`).join(', ')},
  '{}'::int[], f.bucket
  from lead_funnel_offer_facts f`;

/** What the kept path needs of a request: the caller's scope arms, the parsed filter and the groupings. */
export interface KeptRequest {
  arms: Where[];
  where: Where | null;
  keys: KeptKey[];
}

/**
 * The kept path's statement for `request`, or null when the kept figures cannot answer it (a scope
 * without company arms, a filter on anything but `createdAt` or without a whole week, a store grouping
 * with `SOURCE`).
 */
export function keptFunnelStatement(request: KeptRequest, limit: number): Sql | null {
  const { arms, where, keys } = request;
  const companyArms = arms.filter((a) => readsOnly(a, ROLLUP_FIELDS));
  const leadArms = arms.filter((a) => !companyArms.includes(a));
  if (companyArms.length === 0) return null;
  const weeks = wholeWeeks(where);
  if (weeks === null || !(weeks.from < weeks.to)) return null;
  const byStore = keys.some((k) => STORE_KEYS.includes(k));
  if (byStore && keys.includes('source')) return null;

  const parts: Statement[] = [];
  const range: string[] = [];
  const bindings: unknown[] = [];
  if (Number.isFinite(weeks.from)) { range.push('r.week >= ?::date'); bindings.push(day(weeks.from)); }
  if (Number.isFinite(weeks.to)) { range.push('r.week < ?::date'); bindings.push(day(weeks.to)); }
  if (byStore && keys.includes('week')) {
    // A store's weeks: every store week row of the range (about 2.5 per store and week), not a year less a few.
    parts.push(new Statement()
      .add(`select 1, r.week, null::varchar, r.kind, r.store_id, r.territory_id, r.retailer_id, r.currency, ${FIGURES.map((f) => `r.${f}`).join(', ')}, r.histogram, null::smallint
              from lead_funnel_store_weeks r where (`)
      .add(anyOf(companyArms.map((a) => compileScope(storeWeeksDoc, a)))).add({ sql: `)${range.map((r) => ` and ${r}`).join('')}`, bindings }));
  } else if (byStore) {
    const { years, plusWeeks, minusWeeks } = storeRows(weeks);
    const columns = `r.kind, r.store_id, r.territory_id, r.retailer_id, r.currency, ${FIGURES.map((f) => `r.${f}`).join(', ')}, r.histogram, null::smallint`;
    if (years.length) {
      parts.push(new Statement().add(`select 1, null::date, null::varchar, ${columns} from lead_funnel_store_years r where (`)
        .add(anyOf(companyArms.map((a) => compileScope(yearsDoc, a)))).add(') and (').add(anyOf(years)).add(')'));
    }
    for (const [sign, ranges] of [[1, plusWeeks], [-1, minusWeeks]] as const) {
      if (!ranges.length) continue;
      parts.push(new Statement().add(`select ${sign}, null::date, null::varchar, ${columns} from lead_funnel_store_weeks r where (`)
        .add(anyOf(companyArms.map((a) => compileScope(storeWeeksDoc, a)))).add(') and (').add(anyOf(ranges)).add(')'));
    }
  } else {
    parts.push(new Statement()
      .add(`select 1, r.week, r.source_type, null::char(1), null::uuid, null::uuid, null::uuid, r.currency, ${FIGURES.map((f) => `r.${f}`).join(', ')}, r.histogram, null::smallint
              from lead_funnel_weeks r where (`)
      .add(anyOf(companyArms.map((a) => compileScope(weeksDoc, a)))).add({ sql: `)${range.map((r) => ` and ${r}`).join('')}`, bindings }));
  }
  // The days of the filter outside the whole weeks, from the facts.
  for (const [part, doc] of [[LEAD_FACT_PART, leadFactsDoc], [OFFER_FACT_PART, offerFactsDoc]] as const) {
    const filter = where ? compileWhere(doc, where) : TRUE;
    const scope = anyOf(companyArms.map((a) => compileScope(doc, a)));
    for (const [edge, at] of [['<', weeks.from], ['>=', weeks.to]] as const) {
      if (!Number.isFinite(at)) continue;
      parts.push(new Statement().add(`${part} where (`).add(scope).add(') and (').add(filter)
        .add({ sql: `) and f.created_at ${edge} ?::timestamptz`, bindings: [new Date(at).toISOString()] }));
    }
  }
  // The caller's own leads beyond the company arms, as the lead list reads them.
  if (leadArms.length) {
    const leadScopeSql = anyOf(leadArms.map((a) => compileScope(leadSearch, a)));
    const filter = where ? compileWhere(leadSearch, where) : TRUE;
    for (const part of [LEAD_FACT_PART, OFFER_FACT_PART]) {
      parts.push(new Statement().add(`${part} join (select l.id from ${fromClause(leadSearch, leadScopeSql.sql, filter.sql)} where (`)
        .add(leadScopeSql).add(') and (').add(filter).add(') and not coalesce(')
        .add(anyOf(companyArms.map((a) => compileScope(leadSearch, a))))
        .add(', false)) l on l.id = f.lead_id'));
    }
  }

  const groups = keys.map((k) => KEY_SQL[k]);
  const storeJoins = keys.includes('territory') || keys.includes('retailer')
    ? ' left join company_retailer_locations s on s.id = u.store_id left join company_retailers scr on scr.id = s.company_retailer_id'
    : '';
  const statement = new Statement().add(`with u (${PART_COLUMNS.join(', ')}) as (`);
  parts.forEach((p, i) => statement.add(i ? ' union all ' : '').add(p));
  const positions = [...groups.map((_, i) => i + 1), groups.length + 1];
  const names = groups.map((g) => g.as);
  // Per group and won currency, then per group: revenue per currency, the rollups' histograms and the
  // facts' buckets as texts to sum here (a fact's bucket b as b + 1: `58`, or `-58` removed).
  statement.add(`), g as (
    select ${groups.map((g) => `${g.sql} as ${g.as}, `).join('')}u.currency, ${FIGURES.map((f) => `sum(u.sign * u.${f}) as ${f}`).join(', ')},
           string_agg(case when u.sign < 0 then '-' else '' end || u.histogram::text, ';') filter (where cardinality(u.histogram) > 0) as histograms,
           string_agg((u.sign * (u.bucket + 1))::text, ',') filter (where u.bucket is not null) as buckets
      from u${storeJoins}
     group by ${positions.join(', ')})
    select ${names.map((n) => `${n}, `).join('')}${FIGURES.filter((f) => f !== 'amount' && !f.startsWith('declined_')).map((f) => `sum(${f})::int as ${f}`).join(', ')},
           ${DECLINE_REASONS.map((r) => `sum(declined_${r})::int as "${r}"`).join(', ')},
           jsonb_agg(jsonb_build_object('currency', currency, 'amount', amount::text) order by currency) filter (where currency is not null and leads > 0) as revenue,
           string_agg(histograms, ';') as histograms, string_agg(buckets, ',') as buckets
      from g${names.length ? ` group by ${names.join(', ')}` : ''}
    having sum(leads) > 0 or sum(offered) > 0${names.length ? ` order by ${names.map((n) => `${n} nulls last`).join(', ')}` : ''} limit ${limit}`);
  return { sql: statement.sql, bindings: statement.bindings };
}

/** One row of the kept statement: a group's figures (as the plain statement's), its histograms' texts and its facts' buckets, signed. */
type KeptRow = FunnelRow & { histograms: string | null; buckets: string | null };

/** Nearest rank (as `percentile_disc(0.5)`): the first bucket whose running count reaches half of the histogram's. */
function medianBucket(histogram: number[]): number | null {
  let total = 0;
  for (const c of histogram) total += c;
  if (total <= 0) return null;
  let running = 0;
  for (let b = 0; b < histogram.length; b++) {
    running += histogram[b];
    if (running * 2 >= total) return b;
  }
  return null;
}

const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/**
 * Adds the signed integers of `text` into `histogram`: with `positions`, a histogram's text (`{1,0,-3}`,
 * negated by a leading `-`: `-{1,0,3}`), its i-th number into bucket i; else a list of facts' buckets
 * (`58,-58`: bucket b is b + 1, a minus removes one). Read digit by digit into a dense array: a page of
 * 1,000 groups allocates nothing per number.
 */
function addInto(histogram: number[], text: string, positions: boolean): void {
  let i = 0;
  let sign = 1;
  if (positions && text.charCodeAt(0) === MINUS) {
    sign = -1;
    i = 1;
  }
  if (positions) i++; // the `{`
  let position = 0;
  let n = 0;
  let negative = false;
  let digits = false;
  for (; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c >= ZERO && c <= NINE) {
      n = n * 10 + (c - ZERO);
      digits = true;
    } else if (c === MINUS) negative = true;
    else if (digits) {
      const value = negative ? -n : n;
      const bucket = positions ? position++ : Math.abs(value) - 1;
      while (histogram.length <= bucket) histogram.push(0);
      histogram[bucket] += positions ? sign * value : Math.sign(value);
      n = 0;
      negative = false;
      digits = false;
    }
  }
}

/**
 * Runs the kept statement: the funnel statement's rows, each group's histograms summed here for its
 * median bucket; ungrouped, one row even for no lead (as an aggregate without GROUP BY).
 */
export async function keptFunnelRows(em: EntityManager, statement: Sql, keys: KeptKey[]): Promise<FunnelRow[]> {
  const rows = await query<KeptRow>(em, statement.sql, statement.bindings, { prepare: false });
  if (keys.length === 0 && rows.length === 0) {
    return [{ leads: 0, offered: 0, accepted: 0, declined: 0, expired: 0, contacted: 0, won: 0, lost: 0, median: null, revenue: null,
      ...Object.fromEntries(DECLINE_REASONS.map((r) => [r, 0])) }];
  }
  return rows.map(({ histograms, buckets, ...r }) => {
    const histogram: number[] = [];
    if (histograms) for (const text of histograms.split(';')) addInto(histogram, text, true);
    if (buckets) addInto(histogram, buckets, false);
    return { ...r, median: medianBucket(histogram) } as FunnelRow;
  });
}
