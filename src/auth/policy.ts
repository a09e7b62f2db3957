import type { Caller } from './caller';
import { forbidden } from '../errors';
import { Role } from '../modules/user/role';

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
