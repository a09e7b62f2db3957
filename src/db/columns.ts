/**
 * A row shape declared once: each field of a plain row and the SQL that reads it over a table alias
 * (`t => ...`, or a column name read as `<alias>.<column>`). Select lists and JSON objects derive from
 * it, so a statement and the JSON column of an embedding statement read the same fields.
 */
export type ColumnMap<R> = { readonly [K in keyof R]-?: string | ((alias: string) => string) };

/** The id and timestamps every table has (src/db/base.entity.ts). */
export interface BaseRow {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of `BaseRow`, spread into every column map. */
export const BASE_COLUMNS: ColumnMap<BaseRow> = { id: 'id', createdAt: 'created_at', updatedAt: 'updated_at' };

const expression = (column: string | ((alias: string) => string), alias: string) => (typeof column === 'function' ? column(alias) : `${alias}.${column}`);

/** `<sql> as "<field>", ...` over `alias`. */
export function selectColumns<R>(map: ColumnMap<R>, alias: string): string {
  return Object.entries<string | ((alias: string) => string)>(map).map(([field, column]) => `${expression(column, alias)} as "${field}"`).join(', ');
}

/** `json_build_object('<field>', <sql>, ...)` over `alias`. */
export function jsonColumns<R>(map: ColumnMap<R>, alias: string): string {
  return `json_build_object(${Object.entries<string | ((alias: string) => string)>(map)
    .map(([field, column]) => `'${field}', ${expression(column, alias)}`)
    .join(', ')})`;
}

/** `(select json_agg(<json> order by <order>) from <from>)`, `[]` when it finds none. */
export function jsonList(json: string, from: string, order: string): string {
  return `(select coalesce(json_agg(${json} order by ${order}), '[]') from ${from})`;
}

/** `(select json_build_object(...) from <from>)`: one embedded row of `map` over `x`, or null. */
export function jsonRow<R>(map: ColumnMap<R>, from: string): string {
  return `(select ${jsonColumns(map, 'x')} from ${from})`;
}

const EMBED = 'embed_';

/** `<sql> as "embed_<name>"`: a value read with the row (a JSON column), taken off it by `takeEmbeds`. */
export const embedColumn = (name: string, sql: string) => `${sql} as "${EMBED}${name}"`;

/**
 * A statement row split in two: its own columns (a new object, in the statement's order, so the rows of
 * one statement share one hidden class) and its `embed_<name>` columns by `<name>`. Deleting the embeds
 * from the row instead would leave every row a slow dictionary object for the field resolvers.
 */
export function takeEmbeds<R = Record<string, any>>(row: Record<string, any>): { columns: R; embeds: Record<string, any> } {
  const columns: Record<string, any> = {};
  const embeds: Record<string, any> = {};
  for (const key of Object.keys(row)) {
    if (key.startsWith(EMBED)) embeds[key.slice(EMBED.length)] = row[key];
    else columns[key] = row[key];
  }
  return { columns: columns as R, embeds };
}

/**
 * What a page statement read with each row (`E`), kept on the row under a key of its own (a symbol:
 * no GraphQL field and no JSON serialization sees it), for the field resolvers to answer from.
 */
export function rowEmbeds<E>(description: string) {
  const key = Symbol(description);
  return {
    /** The row with its embeds. */
    attach: <R extends object>(row: R, embeds: E): R => Object.assign(row, { [key]: embeds }),
    /** What was read with this row, when it is such a row. */
    of: (row: object): E | undefined => (row as { [key]?: E })[key],
  };
}

/** A reference as an entity holds one (`{ id }`), null without an id. */
export const ref = (id: string | null | undefined): { id: string } | null => (id ? { id } : null);

/**
 * Timestamps arrive as text (MikroORM's pg type parsers, shared by this connection) and become Dates
 * as MikroORM's own hydration makes them (`new Date(text)`).
 */
export function withDates<T>(row: T): T {
  const r = row as any;
  if (typeof r.createdAt === 'string') r.createdAt = new Date(r.createdAt);
  if (typeof r.updatedAt === 'string') r.updatedAt = new Date(r.updatedAt);
  return row;
}

/** The property names a prototype chain holds (accessors of MikroORM's entity helper among them), per prototype. */
const chainKeys = new WeakMap<object, Set<PropertyKey>>();

function keysOfChain(proto: object): Set<PropertyKey> {
  let keys = chainKeys.get(proto);
  if (!keys) {
    keys = new Set();
    for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) for (const k of Reflect.ownKeys(p)) keys.add(k);
    chainKeys.set(proto, keys);
  }
  return keys;
}

/** Per prototype, the row shapes met (their keys) and the prototype each gets (`shadowOf`). */
const shadows = new WeakMap<object, Array<{ keys: readonly string[]; shadow: object }>>();

const sameKeys = (a: readonly string[], b: readonly string[]) => a === b || (a.length === b.length && a.every((k, i) => k === b[i]));

/**
 * A prototype between `proto` and rows with these keys: each key the chain holds (an accessor of
 * MikroORM's entity helper, a getter) is a plain writable data property here, so assigning it on a row
 * makes the row's own property without running a setter, and the rows of one reader share one hidden
 * class (plain assignments in one order, no `defineProperty`), which keeps reading their fields fast.
 */
function shadowOf(proto: object, keys: readonly string[]): object {
  let shapes = shadows.get(proto);
  if (!shapes) shadows.set(proto, (shapes = []));
  const known = shapes.find((s) => sameKeys(s.keys, keys));
  if (known) return known.shadow;
  const onChain = keysOfChain(proto);
  const masks: PropertyDescriptorMap = {};
  for (const key of keys) if (onChain.has(key)) masks[key] = { value: undefined, writable: true, enumerable: false, configurable: true };
  const shadow = Object.create(proto, masks) as object;
  // A reader's rows have one shape; a bound keeps an unforeseen variety from growing the list.
  if (shapes.length < 32) shapes.push({ keys, shadow });
  return shadow;
}

/**
 * A plain row given the prototype of its GraphQL type's class (an entity class), its fields its own
 * properties (no accessor of the prototype runs): type-graphql takes it as an instance as it is,
 * instead of converting it to a new instance for every getter field it resolves. It is not a managed
 * entity (no EntityManager knows it). Symbol keys stay non-enumerable.
 */
export function asInstanceOf<T extends object>(type: { prototype: T }, row: object): T {
  const keys = Object.keys(row);
  const instance = Object.create(shadowOf(type.prototype, keys));
  for (const key of keys) instance[key] = (row as any)[key];
  for (const key of Object.getOwnPropertySymbols(row)) {
    Object.defineProperty(instance, key, { value: (row as any)[key], writable: true, enumerable: false, configurable: true });
  }
  return instance as T;
}

/**
 * An empty instance of the GraphQL type's class for rows with exactly these keys, assigned in this order
 * by its caller (as `asInstanceOf` makes one, without a row to copy from).
 */
export function newInstanceOf<T extends object>(type: { prototype: T }, keys: readonly string[]): T {
  return Object.create(shadowOf(type.prototype, keys)) as T;
}
