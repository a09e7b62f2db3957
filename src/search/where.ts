import { badRequest } from '../errors';
import type { SearchDocument, SearchField, Sql, Where } from './types';

/** The operators of a field condition (PRODUCT.md 6), in the order the contract lists them. */
export const WHERE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'not', 'in', 'all', 'exists', 'prefix', 'like', 'ilike'] as const;
const OPERATORS = new Set<string>(WHERE_OPERATORS);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// ISO 8601 as Elasticsearch's `strict_date_optional_time` reads it; no zone means UTC.
const DATE_RE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/i;

export type Scalar = string | number | boolean;
export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';
export type PatternOp = 'prefix' | 'like' | 'ilike';

/**
 * A `where` after validation and coercion: the one meaning both backends translate.
 * On an array field `terms`, `range` and `pattern` hold when some element satisfies them and
 * `missing` means no elements.
 */
export type Condition =
  | { kind: 'const'; value: boolean }
  | { kind: 'and' | 'or'; parts: Condition[] }
  | { kind: 'not'; part: Condition }
  | { kind: 'missing'; field: string }
  | { kind: 'terms'; field: string; values: Scalar[] }
  | { kind: 'range'; field: string; op: RangeOp; value: Scalar }
  | { kind: 'pattern'; field: string; op: PatternOp; value: string };

export const TRUE: Condition = { kind: 'const', value: true };
export const FALSE: Condition = { kind: 'const', value: false };
const isConst = (c: Condition, value: boolean) => c.kind === 'const' && c.value === value;

export function and(parts: Condition[]): Condition {
  const kept = parts.flatMap((p) => (p.kind === 'and' ? p.parts : [p])).filter((p) => !isConst(p, true));
  if (kept.some((p) => isConst(p, false))) return FALSE;
  if (kept.length === 0) return TRUE;
  return kept.length === 1 ? kept[0] : { kind: 'and', parts: kept };
}

export function or(parts: Condition[]): Condition {
  const kept = parts.flatMap((p) => (p.kind === 'or' ? p.parts : [p])).filter((p) => !isConst(p, false));
  if (kept.some((p) => isConst(p, true))) return TRUE;
  if (kept.length === 0) return FALSE;
  return kept.length === 1 ? kept[0] : { kind: 'or', parts: kept };
}

export function not(part: Condition): Condition {
  if (part.kind === 'const') return { kind: 'const', value: !part.value };
  if (part.kind === 'not') return part.part;
  return { kind: 'not', part };
}

/** Sentinel for a value that cannot be a value of the field's type: the comparison matches nothing. */
export const UNMATCHABLE = Symbol('unmatchable');

/**
 * Query-string values arrive as strings: turn them into the field's type. `null` stays null; a value
 * the field can never hold (a word for a number, a non-UUID for a uuid, a string with a NUL) is
 * UNMATCHABLE.
 */
export function coerce(field: Pick<SearchField, 'type'>, value: unknown): Scalar | null | typeof UNMATCHABLE {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'string':
      if (typeof value === 'object') return UNMATCHABLE;
      return String(value).includes('\u0000') ? UNMATCHABLE : String(value);
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : UNMATCHABLE;
    }
    case 'boolean': {
      const v = typeof value === 'string' ? value.trim().toLowerCase() : value;
      if (v === true || v === 'true' || v === '1' || v === 1) return true;
      if (v === false || v === 'false' || v === '0' || v === 0) return false;
      return UNMATCHABLE;
    }
    case 'date':
      return coerceDate(value);
    case 'uuid':
      return typeof value === 'string' && UUID_RE.test(value.trim()) ? value.trim().toLowerCase() : UNMATCHABLE;
  }
}

/** An ISO 8601 date or date-time (UTC when no zone is given), or epoch milliseconds; years 1-9999. */
function coerceDate(value: unknown): string | typeof UNMATCHABLE {
  let ms: number;
  if (typeof value === 'number') ms = value;
  else if (typeof value !== 'string') return UNMATCHABLE;
  else {
    const s = value.trim();
    const m = DATE_RE.exec(s);
    if (m) {
      const [, y, mo = '01', d = '01', h = '00', mi = '00', sec = '00', frac = '', zone = 'Z'] = m;
      const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
      const iso = `${y}-${mo}-${d}T${h}:${mi}:${sec}.${(frac + '000').slice(0, 3)}${offset}`;
      ms = Date.parse(iso);
      // Date.parse rolls 2026-02-31 over to March: reject dates that do not exist.
      if (Number.isNaN(ms) || !sameCalendarDay(ms, iso)) return UNMATCHABLE;
    } else if (/^-?\d+$/.test(s)) ms = Number(s);
    else return UNMATCHABLE;
  }
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime())) return UNMATCHABLE;
  const year = d.getUTCFullYear();
  return year < 1 || year > 9999 ? UNMATCHABLE : d.toISOString();
}

function sameCalendarDay(ms: number, iso: string): boolean {
  const zone = iso.slice(23);
  const offsetMinutes = zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  const local = new Date(ms + offsetMinutes * 60_000).toISOString();
  return local.slice(0, 16) === iso.slice(0, 16);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** The field of `doc` named `name`, never an inherited property (`constructor`, `__proto__`...). */
export function fieldOf(doc: SearchDocument, name: string): SearchField | undefined {
  return Object.prototype.hasOwnProperty.call(doc.fields, name) ? doc.fields[name] : undefined;
}

/**
 * Who reads a document's fields. The caller's scope (`scope: true`) reads them all; a client's `where`,
 * `order` and `aggs` read neither `scopeOnly` fields nor the fields `hidden` from this caller: to the
 * client those are fields the document does not index (PRODUCT.md section 6: they match nothing).
 */
export interface FieldAccess {
  scope?: boolean;
  hidden?: readonly string[];
}

/** The field named `name` when `access` may read it. */
export function usableField(doc: SearchDocument, name: string, access: FieldAccess = {}): SearchField | undefined {
  const field = fieldOf(doc, name);
  if (!field || access.scope) return field;
  return field.scopeOnly || access.hidden?.includes(name) ? undefined : field;
}

/** The caller's scope as a condition: it alone may read `scopeOnly` fields. */
export function parseScope(doc: SearchDocument, scope: Where): Condition {
  return parseWhere(doc, scope, undefined, { scope: true });
}

/**
 * Parses `where` (PRODUCT.md section 6) over a search document. Sibling keys AND; `_or`/`_and`/`_not`
 * combine; a field the document does not index matches nothing; an unknown operator is a 400.
 * `excludeField` drops the top-level condition on that field (self-excluding facet counts).
 */
export function parseWhere(doc: SearchDocument, where: unknown, excludeField?: string, access: FieldAccess = {}): Condition {
  if (where === null || where === undefined) return TRUE;
  if (!isPlainObject(where)) throw badRequest('opts[where] must be an object');
  const parts: Condition[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === excludeField) continue;
    if (key === '_or' || key === '_and') {
      const list = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : null;
      if (!list) throw badRequest(`opts[where][${key}] must be a list of conditions`);
      const parsed = list.map((w) => parseWhere(doc, w, undefined, access));
      parts.push(key === '_or' ? or(parsed) : and(parsed));
    } else if (key === '_not') {
      parts.push(not(parseWhere(doc, value, undefined, access)));
    } else {
      const field = usableField(doc, key, access);
      if (!field) {
        validateOperators(value);
        parts.push(FALSE);
      } else {
        parts.push(parseField(key, field, value));
      }
    }
  }
  return and(parts);
}

function validateOperators(value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const op of Object.keys(value)) if (!OPERATORS.has(op)) throw badRequest(`Unknown where operator: ${op}`);
}

const list = (arg: unknown): unknown[] => (Array.isArray(arg) ? arg : [arg]);

/** `{field: value}`, `{field: [values]}` or `{field: {op: arg, ...}}` on one field. */
function parseField(name: string, field: SearchField, value: unknown): Condition {
  const c = new FieldConditions(name, field);
  if (Array.isArray(value)) return c.anyOf(value);
  if (!isPlainObject(value)) return c.eq(value);
  validateOperators(value);
  const parts: Condition[] = [];
  for (const [op, arg] of Object.entries(value)) {
    switch (op) {
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        parts.push(c.range(op, arg));
        break;
      case 'not':
        parts.push(not(Array.isArray(arg) ? c.anyOf(arg) : c.eq(arg)));
        break;
      case 'in':
        parts.push(c.anyOf(list(arg)));
        break;
      case 'all':
        parts.push(and(list(arg).map((v) => c.eq(v))));
        break;
      case 'exists': {
        const wanted = coerce({ type: 'boolean' }, arg);
        parts.push(wanted === UNMATCHABLE || wanted === null ? FALSE : wanted ? not(c.missing()) : c.missing());
        break;
      }
      case 'prefix':
      case 'like':
      case 'ilike':
        parts.push(c.pattern(op, arg));
        break;
    }
  }
  return and(parts);
}

class FieldConditions {
  constructor(
    private readonly name: string,
    private readonly field: SearchField,
  ) {}

  missing(): Condition {
    return { kind: 'missing', field: this.name };
  }

  eq(value: unknown): Condition {
    return this.anyOf([value]);
  }

  /** Equal to one of `values`; `null` among them matches a missing value; `[]` matches nothing. */
  anyOf(values: unknown[]): Condition {
    const coerced = values.map((v) => coerce(this.field, v));
    const known = [...new Set(coerced.filter((v): v is Scalar => v !== null && v !== UNMATCHABLE))];
    return or([
      known.length ? { kind: 'terms', field: this.name, values: known } : FALSE,
      coerced.includes(null) ? this.missing() : FALSE,
    ]);
  }

  range(op: RangeOp, value: unknown): Condition {
    const v = coerce(this.field, value);
    return v === null || v === UNMATCHABLE ? FALSE : { kind: 'range', field: this.name, op, value: v };
  }

  /** Patterns read text: on numbers, dates and booleans they match nothing. */
  pattern(op: PatternOp, value: unknown): Condition {
    if (this.field.type !== 'string' && this.field.type !== 'uuid') return FALSE;
    if (typeof value !== 'string' && typeof value !== 'number') return FALSE;
    const text = String(value);
    if (text.includes('\u0000')) return FALSE;
    // A dangling escape would be an SQL error; read it as a literal backslash.
    const pattern = op !== 'prefix' && /(^|[^\\])(\\\\)*\\$/.test(text) ? `${text}\\` : text;
    return { kind: 'pattern', field: this.name, op, value: pattern };
  }
}

// ---- SQL ---------------------------------------------------------------------------------------

const PG_TYPE: Record<SearchField['type'], string> = {
  string: 'text',
  number: 'double precision',
  boolean: 'boolean',
  date: 'timestamptz',
  uuid: 'uuid',
};

// Statements run with their values as parameters (src/db/sql.ts `query`): an array is one parameter.
const SQL_TRUE: Sql = { sql: 'true', bindings: [] };
const SQL_FALSE: Sql = { sql: 'false', bindings: [] };

function joinSql(parts: Sql[], op: 'and' | 'or'): Sql {
  return { sql: parts.map((p) => `(${p.sql})`).join(` ${op} `), bindings: parts.flatMap((p) => p.bindings) };
}

/** A condition as SQL over the document's FROM clause. */
export function conditionToSql(doc: SearchDocument, cond: Condition): Sql {
  switch (cond.kind) {
    case 'const':
      return cond.value ? SQL_TRUE : SQL_FALSE;
    case 'and':
    case 'or':
      return joinSql(
        cond.parts.map((p) => conditionToSql(doc, p)),
        cond.kind,
      );
    case 'not': {
      // A plain field present (`exists: true`, `not: null`): `is not null`, which a partial index `where <field> is not null` serves.
      const part = cond.part;
      if (part.kind === 'missing' && !doc.fields[part.field].array) return { sql: `${doc.fields[part.field].sql} is not null`, bindings: [] };
      const inner = conditionToSql(doc, cond.part);
      return { sql: `not coalesce((${inner.sql}), false)`, bindings: inner.bindings };
    }
    default: {
      const field = doc.fields[cond.field];
      if (!field.array) return leafSql(field.sql, field, cond);
      if (field.each) {
        const { rows, value } = field.each;
        if (cond.kind === 'missing') return { sql: `not exists (select 1 from ${rows})`, bindings: [] };
        const element = leafSql(value, field, cond);
        return { sql: `exists (select 1 from ${rows} and (${element.sql}))`, bindings: element.bindings };
      }
      if (cond.kind === 'missing') return { sql: `coalesce(cardinality(${field.sql}), 0) = 0`, bindings: [] };
      const element = leafSql('v', field, cond);
      return { sql: `exists (select 1 from unnest(${field.sql}) as v where ${element.sql})`, bindings: element.bindings };
    }
  }
}

function leafSql(e: string, field: SearchField, cond: Extract<Condition, { field: string }>): Sql {
  const cast = `?::${PG_TYPE[field.type]}`;
  switch (cond.kind) {
    case 'missing':
      return { sql: `${e} is null`, bindings: [] };
    case 'terms':
      return cond.values.length === 1
        ? { sql: `${e} = ${cast}`, bindings: [cond.values[0]] }
        : { sql: `${e} = any(?::${PG_TYPE[field.type]}[])`, bindings: [cond.values] };
    case 'range': {
      const sym = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[cond.op];
      return { sql: `${e} ${sym} ${cast}`, bindings: [cond.value] };
    }
    case 'pattern': {
      const pattern = cond.op === 'prefix' ? cond.value.replace(/[\\%_]/g, (c) => `\\${c}`) + '%' : cond.value;
      return { sql: `${e}::text ${cond.op === 'ilike' ? 'ilike' : 'like'} ?`, bindings: [pattern] };
    }
  }
}

/** `where` compiled to SQL (see `parseWhere`). */
export function compileWhere(doc: SearchDocument, where: Where | unknown, excludeField?: string, access: FieldAccess = {}): Sql {
  return conditionToSql(doc, parseWhere(doc, where, excludeField, access));
}

/** The caller's scope compiled to SQL: it may read every field, `scopeOnly` ones included. */
export function compileScope(doc: SearchDocument, scope: Where): Sql {
  return conditionToSql(doc, parseScope(doc, scope));
}
