/**
 * What became of the store locator searches this process kept for locator demand
 * (src/modules/locator-demand), for `/metrics` (`leadnet_locator_demand_searches_total{outcome}`):
 * `recorded` (counted in the buffer), `dropped` (the buffer was full: its count is lost), `skipped` (not a
 * place: a box wider than a degree, or a page after the first), and the buffer's flushes
 * (`leadnet_locator_demand_flushes_total{outcome}`: `ok`, `failed`).
 */
export type DemandSearchOutcome = 'recorded' | 'dropped' | 'skipped';
export const DEMAND_SEARCH_OUTCOMES: readonly DemandSearchOutcome[] = ['recorded', 'dropped', 'skipped'];
export type DemandFlushOutcome = 'ok' | 'failed';
export const DEMAND_FLUSH_OUTCOMES: readonly DemandFlushOutcome[] = ['ok', 'failed'];

const searches = new Map<DemandSearchOutcome, number>(DEMAND_SEARCH_OUTCOMES.map((o) => [o, 0]));
const flushes = new Map<DemandFlushOutcome, number>(DEMAND_FLUSH_OUTCOMES.map((o) => [o, 0]));

export function countDemandSearch(outcome: DemandSearchOutcome): void {
  searches.set(outcome, (searches.get(outcome) ?? 0) + 1);
}

export function countDemandFlush(outcome: DemandFlushOutcome): void {
  flushes.set(outcome, (flushes.get(outcome) ?? 0) + 1);
}

export function demandSearchCounts(): ReadonlyMap<DemandSearchOutcome, number> {
  return searches;
}

export function demandFlushCounts(): ReadonlyMap<DemandFlushOutcome, number> {
  return flushes;
}
