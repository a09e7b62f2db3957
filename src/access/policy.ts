import type { EntityClass } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller';
import type { SearchDocument, Where } from '../search/types';
import { forbidden } from '../errors';
import { Role } from '../auth/role';

export type Action = 'list' | 'show' | 'create' | 'update' | 'destroy';

export const READ: readonly Action[] = ['list', 'show'];
export const ALL: readonly Action[] = ['list', 'show', 'create', 'update', 'destroy'];
export const NONE: readonly Action[] = [];

/**
 * What each role may do with one resource (PRODUCT.md section 4). It is asked only about records the
 * caller already sees: a record outside the caller's scope (section 3) is 404 before this is consulted,
 * and a visible record with an action the role lacks is 403.
 */
export type ActionTable = Readonly<Record<Role, readonly Action[]>>;

/** Per role, the input attributes it may write (`permit` drops or refuses the rest). */
export type WritableTable<K extends string> = Readonly<Record<Role, readonly K[]>>;

export function may(table: ActionTable, caller: Caller, action: Action): boolean {
  return table[caller.role]?.includes(action) ?? false;
}

/** 403 unless the caller's role may take `action` on the resource. */
export function authorize(table: ActionTable, caller: Caller, action: Action): void {
  if (!may(table, caller, action)) throw forbidden();
}

/** A table giving every role the same actions, then the exceptions. */
export function actionTable(base: readonly Action[], exceptions: Partial<Record<Role, readonly Action[]>>): ActionTable {
  const table = {} as Record<Role, readonly Action[]>;
  for (const role of Object.values(Role)) table[role] = exceptions[role] ?? base;
  return table;
}

/**
 * Everything about who may reach one resource, in its `<name>.policy.ts`, each rule written once. The
 * GraphQL shield map (src/graphql/schema.ts) and the visibility table (src/access/visibility.ts) are
 * derived from the policies; services call `authorize(policy.actions, ...)` and `permit(writable, ...)`
 * with its tables and search with its scope.
 */
export interface ResourcePolicy {
  /** Who reaches its GraphQL fields: graphql-shield rules per type and field (anything not listed is denied). */
  rules: Readonly<Record<string, any>>;
  /** Which actions each role may take on a record it sees (`authorize`). */
  actions?: ActionTable;
  /** The records a caller sees, as a `Where` over the resource's search document. */
  scope?: (caller: Caller) => Where;
  /** Per role, the input attributes it may write (`permit`). */
  writable?: WritableTable<string>;
  /**
   * The object type made visible the same way wherever it is reached (roots, nested fields, includes,
   * references of writes, counts), with its entity and search document; seen through `scope`.
   */
  visible?: { type: string; entity: EntityClass<any>; doc: SearchDocument };
}
