import { badRequest } from '../errors';
import type { SearchDocument, SearchField, Sql, Where } from './types';

const OPERATORS = new Set(['gt', 'gte', 'lt', 'lte', 'not', 'in', 'all', 'exists', 'prefix', 'like', 'ilike']);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const TRUE: Sql = { sql: 'true', bindings: [] };
const FALSE: Sql = { sql: 'false', bindings: [] };

const PG_TYPE: Record<SearchField['type'], string> = {
  string: 'text',
  number: 'double precision',
  boolean: 'boolean',
  date: 'timestamptz',
  uuid: 'uuid',
};

/** Sentinel for a value that cannot be a value of the field's type: the comparison matches nothing. */
const UNMATCHABLE = Symbol('unmatchable');
type Coerced = unknown | typeof UNMATCHABLE;

/** Query-string values arrive as strings: turn them into the field's type. */
export function coerce(field: SearchField, value: unknown): Coerced {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'string':
      return typeof value === 'object' ? UNMATCHABLE : String(value);
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? n : UNMATCHABLE;
    }
    case 'boolean':
      if (value === true || value === 'true' || value === '1' || value === 1) return true;
      if (value === false || value === 'false' || value === '0' || value === 0) return false;
      return UNMATCHABLE;
    case 'date': {
      if (typeof value !== 'string' && typeof value !== 'number') return UNMATCHABLE;
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? UNMATCHABLE : d.toISOString();
    }
    case 'uuid':
      return typeof value === 'string' && UUID_RE.test(value) ? value.toLowerCase() : UNMATCHABLE;
  }
}

const and = (parts: Sql[]): Sql => {
  const kept = parts.filter((p) => p.sql !== 'true');
  if (kept.some((p) => p.sql === 'false')) return FALSE;
  if (kept.length === 0) return TRUE;
  if (kept.length === 1) return kept[0];
  return { sql: kept.map((p) => `(${p.sql})`).join(' and '), bindings: kept.flatMap((p) => p.bindings) };
};

const or = (parts: Sql[]): Sql => {
  const kept = parts.filter((p) => p.sql !== 'false');
  if (kept.some((p) => p.sql === 'true')) return TRUE;
  if (kept.length === 0) return FALSE;
  if (kept.length === 1) return kept[0];
  return { sql: kept.map((p) => `(${p.sql})`).join(' or '), bindings: kept.flatMap((p) => p.bindings) };
};

const not = (part: Sql): Sql =>
  part.sql === 'true' ? FALSE : part.sql === 'false' ? TRUE : { sql: `not coalesce((${part.sql}), false)`, bindings: part.bindings };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A condition on one scalar expression `e`. */
class ScalarConditions {
  constructor(
    private readonly e: string,
    private readonly field: SearchField,
  ) {}

  private cast = () => `?::${PG_TYPE[this.field.type]}`;

  eq(value: unknown): Sql {
    const v = coerce(this.field, value);
    if (v === UNMATCHABLE) return FALSE;
    if (v === null) return { sql: `${this.e} is null`, bindings: [] };
    return { sql: `${this.e} = ${this.cast()}`, bindings: [v] };
  }

  anyOf(values: unknown[]): Sql {
    const coerced = values.map((v) => coerce(this.field, v)).filter((v) => v !== UNMATCHABLE);
    const nonNull = coerced.filter((v) => v !== null);
    const parts: Sql[] = [];
    // An array binding is spliced in as a comma list (MikroORM formats raw SQL itself): build the array in SQL.
    if (nonNull.length) parts.push({ sql: `${this.e} = any(array[?]::${PG_TYPE[this.field.type]}[])`, bindings: [nonNull] });
    if (coerced.length !== nonNull.length) parts.push({ sql: `${this.e} is null`, bindings: [] });
    return or(parts);
  }

  compare(op: 'gt' | 'gte' | 'lt' | 'lte', value: unknown): Sql {
    const v = coerce(this.field, value);
    if (v === UNMATCHABLE || v === null) return FALSE;
    const sym = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
    return { sql: `${this.e} ${sym} ${this.cast()}`, bindings: [v] };
  }

  pattern(op: 'prefix' | 'like' | 'ilike', value: unknown): Sql {
    if (typeof value !== 'string' && typeof value !== 'number') return FALSE;
    const text = String(value);
    const pattern = op === 'prefix' ? text.replace(/[\\%_]/g, (c) => `\\${c}`) + '%' : text;
    return { sql: `${this.e}::text ${op === 'ilike' ? 'ilike' : 'like'} ?`, bindings: [pattern] };
  }
}

/**
 * Compiles `where` (PRODUCT.md section 6) over a search document into a SQL condition.
 * Sibling keys AND; `_or`/`_and`/`_not` combine; a field the document does not index matches nothing;
 * an unknown operator is a 400.
 */
export function compileWhere(doc: SearchDocument, where: unknown, excludeField?: string): Sql {
  if (where === null || where === undefined) return TRUE;
  if (!isPlainObject(where)) throw badRequest('opts[where] must be an object');
  const parts: Sql[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '_or' || key === '_and') {
      const list = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : null;
      if (!list) throw badRequest(`opts[where][${key}] must be a list of conditions`);
      const compiled = list.map((w) => compileWhere(doc, w, excludeField));
      parts.push(key === '_or' ? or(compiled) : and(compiled));
    } else if (key === '_not') {
      parts.push(not(compileWhere(doc, value, excludeField)));
    } else if (key === excludeField) {
      continue;
    } else {
      const field = doc.fields[key];
      if (!field) {
        validateOperators(value);
        parts.push(FALSE);
      } else {
        parts.push(compileField(field, value));
      }
    }
  }
  return and(parts);
}

function validateOperators(value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const op of Object.keys(value)) if (!OPERATORS.has(op)) throw badRequest(`Unknown where operator: ${op}`);
}

function compileField(field: SearchField, value: unknown): Sql {
  return field.array ? compileArrayField(field, value) : compileScalar(new ScalarConditions(field.sql, field), field, value);
}

function compileScalar(c: ScalarConditions, field: SearchField, value: unknown): Sql {
  if (Array.isArray(value)) return c.anyOf(value);
  if (!isPlainObject(value)) return c.eq(value);
  validateOperators(value);
  const parts: Sql[] = [];
  for (const [op, arg] of Object.entries(value)) {
    switch (op) {
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        parts.push(c.compare(op, arg));
        break;
      case 'not':
        parts.push(not(Array.isArray(arg) ? c.anyOf(arg) : c.eq(arg)));
        break;
      case 'in':
        parts.push(c.anyOf(Array.isArray(arg) ? arg : [arg]));
        break;
      case 'all':
        parts.push(and((Array.isArray(arg) ? arg : [arg]).map((v) => c.eq(v))));
        break;
      case 'exists': {
        const wanted = coerce({ sql: '', type: 'boolean' }, arg);
        if (wanted === UNMATCHABLE) return FALSE;
        parts.push({ sql: `${field.sql} is ${wanted ? 'not ' : ''}null`, bindings: [] });
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

/** Array fields: a condition holds when some element satisfies it (`all`: every listed value is present). */
function compileArrayField(field: SearchField, value: unknown): Sql {
  const element = new ScalarConditions('v', field);
  const some = (cond: Sql): Sql =>
    cond.sql === 'false' ? FALSE : { sql: `exists (select 1 from unnest(${field.sql}) as v where ${cond.sql})`, bindings: cond.bindings };
  const empty: Sql = { sql: `coalesce(cardinality(${field.sql}), 0) = 0`, bindings: [] };
  if (value === null) return empty;
  if (Array.isArray(value)) {
    const nonNull = value.filter((v) => v !== null);
    return or([some(element.anyOf(nonNull)), ...(nonNull.length !== value.length ? [empty] : [])]);
  }
  if (!isPlainObject(value)) return some(element.eq(value));
  validateOperators(value);
  const parts: Sql[] = [];
  for (const [op, arg] of Object.entries(value)) {
    switch (op) {
      case 'not':
        parts.push(arg === null ? not(empty) : not(some(Array.isArray(arg) ? element.anyOf(arg) : element.eq(arg))));
        break;
      case 'in':
        parts.push(some(element.anyOf(Array.isArray(arg) ? arg : [arg])));
        break;
      case 'all':
        parts.push(and((Array.isArray(arg) ? arg : [arg]).map((v) => some(element.eq(v)))));
        break;
      case 'exists': {
        const wanted = coerce({ sql: '', type: 'boolean' }, arg);
        if (wanted === UNMATCHABLE) return FALSE;
        parts.push(wanted ? not(empty) : empty);
        break;
      }
      default:
        parts.push(some(compileScalar(element, field, { [op]: arg })));
    }
  }
  return and(parts);
}
