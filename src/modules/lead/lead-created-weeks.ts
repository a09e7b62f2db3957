import { coerce } from '../../search/where';
import type { Where } from '../../search/types';
import { leadSearch } from './lead.search';

/**
 * The whole UTC weeks (Monday first) of a lead list filter on `createdAt`: what the kept lead figures
 * (`leadResponseStats`, `leadFunnel`) can answer from weekly rows.
 */

const DAY_MS = 86_400_000;
export const WEEK_MS = 7 * DAY_MS;

/** Monday 00:00 UTC of the week holding `ms`. */
export const weekStart = (ms: number) => {
  const d = Math.floor(ms / DAY_MS);
  return (d - ((new Date(d * DAY_MS).getUTCDay() + 6) % 7)) * DAY_MS;
};
/** The names of the fields a `Where` reads. */
export function fieldsOf(where: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(where)) for (const w of where) fieldsOf(w, into);
  else if (where && typeof where === 'object') {
    for (const [key, value] of Object.entries(where)) {
      if (key === '_or' || key === '_and' || key === '_not') fieldsOf(value, into);
      else into.add(key);
    }
  }
  return into;
}
export const readsOnly = (where: unknown, fields: readonly string[]) => [...fieldsOf(where)].every((f) => fields.includes(f));

/**
 * The whole weeks (UTC, Monday first) a filter on `createdAt` alone keeps entirely: `[from, to)` in ms,
 * unbounded sides as infinities; null when the filter reads anything else or several bounds of a side.
 */
export function wholeWeeks(where: Where | null): { from: number; to: number } | null {
  const conditions = where === null ? [] : Array.isArray(where._and) && Object.keys(where).length === 1 ? where._and : [where];
  let from = -Infinity;
  let to = Infinity;
  let lower = 0;
  let upper = 0;
  for (const c of conditions as Where[]) {
    const keys = Object.keys(c ?? {});
    if (keys.length !== 1 || keys[0] !== 'created_at' || !c.created_at || typeof c.created_at !== 'object') return null;
    const ops = Object.entries(c.created_at as Record<string, unknown>);
    if (ops.length !== 1) return null;
    const [op, value] = ops[0];
    const iso = coerce(leadSearch.fields.created_at, value);
    if (typeof iso !== 'string') return null;
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) return null;
    if (op === 'gte' || op === 'gt') {
      lower++;
      const start = weekStart(ms);
      from = op === 'gte' && start === ms ? ms : start + WEEK_MS;
    } else if (op === 'lt' || op === 'lte') {
      upper++;
      to = weekStart(ms);
    } else return null;
  }
  if (lower > 1 || upper > 1) return null;
  return { from, to };
}

