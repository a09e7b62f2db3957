import { AppError } from '../errors';
import { isPlainObject, usableField, type FieldAccess } from './where';
import type { SearchDocument } from './types';

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const LOGICAL = new Set(['_and', '_or', '_not']);

/**
 * GraphQL callers name a list's fields as its types do (`createdAt`) or as the REST contract does
 * (`created_at`); both mean the same field. A name that is neither is a `BAD_USER_INPUT` error naming
 * the fields there are, never the silent empty result REST's `opts[where]` gives (PRODUCT.md 6 keeps
 * that for the REST contract, whose requests do not come through here).
 */
export class GraphQLFieldNames {
  private readonly byName = new Map<string, string>();

  constructor(
    doc: SearchDocument,
    access: FieldAccess,
    private readonly resource: string,
  ) {
    for (const name of Object.keys(doc.fields)) {
      if (!usableField(doc, name, access)) continue;
      this.byName.set(name, name);
      this.byName.set(camel(name), name);
    }
  }

  /** The document's name for a field the caller named; a BAD_USER_INPUT error for any other name. */
  field(name: string, argument: string): string {
    const known = this.byName.get(name);
    if (known) return known;
    const names = [...new Set([...this.byName.values()].map(camel))].sort().join(', ');
    throw new AppError('BAD_USER_INPUT', `${this.resource} cannot ${argument} on "${name}". Fields: ${names}.`);
  }

  /** `where` with every field renamed (operators and `_and`/`_or`/`_not` kept). */
  where(where: unknown): unknown {
    if (Array.isArray(where)) return where.map((w) => this.where(w));
    if (!isPlainObject(where)) return where;
    return Object.fromEntries(
      Object.entries(where).map(([key, value]) => (LOGICAL.has(key) ? [key, this.where(value)] : [this.field(key, 'filter'), value])),
    );
  }

  /** `order` (a name, `{name: dir}` or a list of either) with every field renamed; `_score` stays. */
  order(order: unknown): unknown {
    const rename = (name: string) => (name === '_score' ? name : this.field(name, 'order'));
    if (typeof order === 'string') return rename(order);
    if (Array.isArray(order)) return order.map((o) => this.order(o));
    if (!isPlainObject(order)) return order;
    return Object.fromEntries(Object.entries(order).map(([name, dir]) => [rename(name), dir]));
  }

  /** `aggs` renamed, with the caller's name of each aggregated field (to key the answer by it). */
  aggs(aggs: unknown): { aggs: unknown; asked: Map<string, string> } {
    const asked = new Map<string, string>();
    const rename = (name: string) => {
      const field = this.field(name, 'aggregate');
      asked.set(field, name);
      return field;
    };
    if (typeof aggs === 'string') return { aggs: rename(aggs), asked };
    if (Array.isArray(aggs)) return { aggs: aggs.map((a) => (typeof a === 'string' ? rename(a) : a)), asked };
    if (!isPlainObject(aggs)) return { aggs, asked };
    const renamed = Object.fromEntries(
      Object.entries(aggs).map(([name, options]) => [
        rename(name),
        isPlainObject(options) && 'where' in options ? { ...options, where: this.where(options.where) } : options,
      ]),
    );
    return { aggs: renamed, asked };
  }
}
