import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import type { Sql } from '../../search/types';

/** The decline reasons of `lead_offers` (Migration20261206150000_lead_offers); a declined offer without one counts as `other`. */
export const DECLINE_REASONS = ['too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other'] as const;

/** Buckets of seconds (`leadnet_response_bucket`): bucket 0 is under a second, bucket b >= 1 is [1.1^(b-1), 1.1^b) seconds. */
const BUCKET_RATIO = 1.1;

/** The seconds a bucket stands for: its geometric middle (within 4.9% of any value in it), 0 under a second. */
export function bucketSeconds(bucket: number | null): number | null {
  if (bucket === null) return null;
  return bucket === 0 ? 0 : Math.pow(BUCKET_RATIO, bucket - 0.5);
}

/** One group's row of the funnel statement (`funnelStatement`). */
export interface FunnelRow {
  store_id?: string | null;
  territory_id?: string | null;
  retailer_id?: string | null;
  week?: string | null;
  source?: string | null;
  leads: number;
  offered: number;
  accepted: number;
  declined: number;
  expired: number;
  contacted: number;
  won: number;
  lost: number;
  /** The median bucket of the seconds to accept (`leadnet_response_bucket`, `bucketSeconds`). */
  median: number | null;
  /** Declined offers per reason (`DECLINE_REASONS`), 0 for none. */
  [reason: string]: unknown;
  revenue: Array<{ currency: string; amount: string }> | null;
}

/** A group key: its expression over the scoped lead `l`, over an offer `f` of it (store `s`, company retailer `scr`), and its name. */
export interface FunnelKey {
  lead: string;
  offer: string;
  as: string;
}

/**
 * The funnel of the leads `scoped` selects (`select l.id, ... from leads l ... where <scope> and <filter>`,
 * every lead column the keys read), grouped by `keys`: lead figures (leads, contacted, won, lost,
 * revenue per currency) by the lead's keys, offer figures (offered, accepted, declined by reason,
 * expired, the median bucket of the seconds to accept) by the offer's. One statement; at most `limit` groups.
 */
export function funnelStatement(scoped: Sql, keys: readonly FunnelKey[], limit: number): Sql {
  const names = keys.map((k) => k.as);
  const leadKeys = keys.map((k) => `${k.lead} as ${k.as}, `).join('');
  const offerKeys = keys.map((k) => `${k.offer} as ${k.as}, `).join('');
  // By position: an output name that is also a column of a joined table (`store_id`) would mean the column.
  const groupBy = (list: string[]) => (list.length ? ` group by ${list.map((_, i) => i + 1).join(', ')}` : '');
  const select = names.map((k) => (k === 'week' ? `to_char(week, 'YYYY-MM-DD') as week, ` : `${k}, `)).join('');
  const zero = (columns: string) => `${names.map((k) => `${k}, `).join('')}${columns}`;
  // The offer's store's territory and retailer only when a grouping reads them.
  const storeJoins = keys.some((k) => /\bs\.|\bscr\./.test(k.offer))
    ? ' left join company_retailer_locations s on s.id = f.store_id left join company_retailers scr on scr.id = s.company_retailer_id'
    : '';
  const reasons = DECLINE_REASONS.map((r) => `count(*) filter (where f.state = 'declined' and coalesce(f.decline_reason, 'other') = '${r}') as "${r}"`).join(', ');
  const reasonSums = DECLINE_REASONS.map((r) => `sum("${r}")::int as "${r}"`).join(', ');
  // Each part reads the scoped leads once (not materialized: a scan each, no spill to disk), then the parts are summed per group.
  const sql = `with scoped as not materialized (${scoped.sql}),
    lead_part as (
      select ${leadKeys}count(*) as leads, count(t.answered_at) as contacted,
             count(*) filter (where o.result = 'won') as won, count(*) filter (where o.result = 'lost') as lost
        from scoped l left join lead_response_timers t on t.lead_id = l.id left join lead_outcomes o on o.lead_id = l.id${groupBy(names)}),
    revenue_part as (
      select ${zero("jsonb_agg(jsonb_build_object('currency', currency, 'amount', amount::text) order by currency) as revenue")}
        from (select ${leadKeys}o.currency, sum(o.amount_minor) as amount
                from scoped l join lead_outcomes o on o.lead_id = l.id
               where o.result = 'won' and o.amount_minor is not null${groupBy([...names, 'o.currency'])}) x${groupBy(names)}),
    offer_part as (
      select ${offerKeys}count(*) as offered, count(*) filter (where f.state = 'accepted') as accepted,
             count(*) filter (where f.state = 'declined') as declined, count(*) filter (where f.state = 'expired') as expired, ${reasons},
             percentile_disc(0.5) within group (order by leadnet_response_bucket(extract(epoch from f.answered_at - f.offered_at)::float8))
               filter (where f.state = 'accepted') as median
        from scoped l join lead_offers f on f.lead_id = l.id${storeJoins}${groupBy(names)}),
    u as (
      select ${zero(`leads, contacted, won, lost, 0 as offered, 0 as accepted, 0 as declined, 0 as expired, ${DECLINE_REASONS.map((r) => `0 as "${r}"`).join(', ')}, null::numeric as median, null::jsonb as revenue`)} from lead_part
      union all select ${zero(`0, 0, 0, 0, offered, accepted, declined, expired, ${DECLINE_REASONS.map((r) => `"${r}"`).join(', ')}, median, null`)} from offer_part
      union all select ${zero(`0, 0, 0, 0, 0, 0, 0, 0, ${DECLINE_REASONS.map(() => '0').join(', ')}, null, revenue`)} from revenue_part)
    select ${select}sum(leads)::int as leads, sum(offered)::int as offered, sum(accepted)::int as accepted, sum(declined)::int as declined,
           sum(expired)::int as expired, sum(contacted)::int as contacted, sum(won)::int as won, sum(lost)::int as lost, ${reasonSums},
           max(median)::float8 as median, (array_agg(revenue) filter (where revenue is not null))[1] as revenue
      from u${groupBy(names)}${names.length ? ` order by ${names.map((k) => `${k} nulls last`).join(', ')}` : ''} limit ${limit}`;
  return { sql, bindings: scoped.bindings };
}

/** Runs the funnel statement (unprepared: its text depends on the scope and filter). */
export function funnelRows(em: EntityManager, statement: Sql): Promise<FunnelRow[]> {
  return query<FunnelRow>(em, statement.sql, statement.bindings, { prepare: false });
}
