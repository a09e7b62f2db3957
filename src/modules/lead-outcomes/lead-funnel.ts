import { ArgsType, Field, getMetadataStorage, type ClassType } from 'type-graphql';
import type { Context } from '../../context';
import { authorize } from '../../access/policy';
import { FairShare, shareKey } from '../../http/fair-share';
import { listInputs, ListOptions } from '../../search/list-args';
import { compileScope, compileWhere } from '../../search/where';
import { hiddenFields } from '../../search/list';
import { fromClause, type Sql, type Where } from '../../search/types';
import type { Caller } from '../../auth/caller';
import { leadSearch } from '../lead/lead.search';
import { leadScope } from '../lead/lead.policy';
import { leadOutcomePolicy } from './lead-outcome.policy';
import { bucketSeconds, DECLINE_REASONS, funnelRows, funnelStatement, type FunnelKey, type FunnelRow } from './lead-funnel.queries';
import { keptFunnelRows, keptFunnelStatement, type KeptKey } from './lead-funnel-kept.queries';
import { LeadFunnelGroup, type LeadFunnelRow } from './lead-outcome.types';

/** The lead list's own typed filter (`LeadWhere`), so the funnel filters exactly as `leads(where:)` does. */
function leadWhereType(): ClassType {
  const { FilterArgs } = listInputs(leadSearch, 'Lead');
  const field = getMetadataStorage().fields.find((f) => f.target === FilterArgs && f.name === 'where');
  return field!.getType() as ClassType;
}

@ArgsType()
export class LeadFunnelArgs {
  @Field(() => leadWhereType(), { nullable: true, description: 'The lead list\'s filter (`LeadWhere`), e.g. `{ createdAt: { gte: "2026-01-01" } }`.' })
  where?: unknown;

  @Field(() => [LeadFunnelGroup], { nullable: true, description: 'Distinct groupings (duplicates collapse); none: one row for everything.' })
  groupBy?: LeadFunnelGroup[] | null;
}

const WEEK = `date_trunc('week', l.created_at at time zone 'UTC')::date`;
const KEYS: Record<LeadFunnelGroup, FunnelKey> = {
  [LeadFunnelGroup.STORE]: { lead: 'l.assignee_id', offer: 'f.store_id', as: 'store_id' },
  [LeadFunnelGroup.TERRITORY]: { lead: 'l.assignee_territory_id', offer: 'coalesce(s.territory_id, scr.territory_id)', as: 'territory_id' },
  [LeadFunnelGroup.RETAILER]: { lead: 'l.assignee_retailer_id', offer: 's.retailer_id', as: 'retailer_id' },
  [LeadFunnelGroup.WEEK]: { lead: WEEK, offer: WEEK, as: 'week' },
  [LeadFunnelGroup.SOURCE]: { lead: 'l.source_type', offer: 'l.source_type', as: 'source' },
};
const MAX_ROWS = 5000;

/**
 * A funnel statement may read every scoped lead (the plain statement: hundreds of ms for a company's
 * year), so, as for `leadResponseStats`, per organisation at most 2 run at once and 16 more wait;
 * beyond that RATE_LIMITED. One brand's dashboards then hold at most 2 pooled connections.
 */
export const funnelShare = new FairShare({ inFlight: 2, queue: 16, waitMs: 30_000 });

/**
 * The funnel's one statement for `caller` (the bench explains it): the leads of the caller's lead list
 * for `where` (the same scope, `leadScope`, and typed filter), grouped as asked.
 */
export function leadFunnelStatement(caller: Caller, args: LeadFunnelArgs): Sql {
  authorize(caller, 'funnel', leadOutcomePolicy);
  const groups = [...new Set(args.groupBy ?? [])];
  const where = new ListOptions(leadSearch, hiddenFields(leadSearch, caller)).where(args.where);
  const scope = compileScope(leadSearch, leadScope(caller));
  const filter = where ? compileWhere(leadSearch, where) : { sql: 'true', bindings: [] };
  const scoped = {
    sql: `select l.id, l.assignee_id, l.assignee_territory_id, l.assignee_retailer_id, l.source_type, l.created_at
            from ${fromClause(leadSearch, scope.sql, filter.sql)} where (${scope.sql}) and (${filter.sql})`,
    bindings: [...scope.bindings, ...filter.bindings],
  };
  return funnelStatement(scoped, groups.map((g) => KEYS[g]), MAX_ROWS);
}

/**
 * The kept path's statement for `caller` (docs/lead-loop.md "How the funnel is kept"): the rollups and
 * facts, when the caller's scope has company arms (a company admin's) and `where` reads `createdAt`
 * alone and the groupings are not a store's with `WEEK` or `SOURCE`; null otherwise.
 */
export function leadFunnelKeptStatement(caller: Caller, args: LeadFunnelArgs): Sql | null {
  authorize(caller, 'funnel', leadOutcomePolicy);
  const groups = [...new Set(args.groupBy ?? [])];
  const where = new ListOptions(leadSearch, hiddenFields(leadSearch, caller)).where(args.where);
  const scope = leadScope(caller);
  const arms: Where[] = Array.isArray(scope._or) && Object.keys(scope).length === 1 ? (scope._or as Where[]) : [scope];
  return keptFunnelStatement({ arms, where, keys: groups as string[] as KeptKey[] }, MAX_ROWS);
}

/**
 * The lead funnel (docs/lead-loop.md "The funnel") over the leads the caller's lead list shows for
 * `where` (the same scope, `leadScope`, and typed filter): from the kept figures when they answer the
 * request (`leadFunnelKeptStatement`), else one statement over the scoped leads, their offers,
 * first-response timers and outcomes. The same figures either way.
 */
export async function leadFunnel(ctx: Context, args: LeadFunnelArgs): Promise<LeadFunnelRow[]> {
  const kept = leadFunnelKeptStatement(ctx.caller!, args);
  const statement = kept ? null : leadFunnelStatement(ctx.caller!, args);
  const release = await funnelShare.enter(shareKey(ctx.caller!));
  let rows: FunnelRow[];
  try {
    rows = kept
      ? await keptFunnelRows(ctx.em, kept, [...new Set(args.groupBy ?? [])] as string[] as KeptKey[])
      : await funnelRows(ctx.em, statement!);
  } finally {
    release();
  }
  return funnelOutput(rows);
}

/** The GraphQL rows of funnel statement rows (either path's). */
export function funnelOutput(rows: FunnelRow[]): LeadFunnelRow[] {
  return rows.map((r) => ({
    storeId: r.store_id ?? null,
    territoryId: r.territory_id ?? null,
    retailerId: r.retailer_id ?? null,
    week: r.week ?? null,
    source: r.source ?? null,
    leads: r.leads,
    offered: r.offered,
    accepted: r.accepted,
    declined: r.declined,
    declinedByReason: DECLINE_REASONS.map((reason) => ({ reason, count: r[reason] as number }))
      .filter((c) => c.count > 0)
      .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
    expired: r.expired,
    contacted: r.contacted,
    won: r.won,
    lost: r.lost,
    revenue: (r.revenue ?? []).map((x) => ({ currency: x.currency, amountMinor: Number(x.amount) })),
    medianSecondsToAccept: r.median === null ? null : Math.round(bucketSeconds(r.median)!),
  }));
}
