import type { Caller } from '../auth/caller';
import type { Where } from '../search/types';
import { forbidden } from '../errors';
import { Role } from '../auth/role';

/** The actions of the contract's resources (SPEC 2): what the per-role action tables list. */
export type Action = 'list' | 'show' | 'create' | 'update' | 'destroy';
const TABLE_ACTIONS: ReadonlySet<string> = new Set<Action>(['list', 'show', 'create', 'update', 'destroy']);

export const READ: readonly Action[] = ['list', 'show'];
export const ALL: readonly Action[] = ['list', 'show', 'create', 'update', 'destroy'];
export const NONE: readonly Action[] = [];

/**
 * What each role may do with one resource (PRODUCT.md section 4). It is asked only about records the
 * caller already sees: a record outside the caller's scope (section 3) is 404 before this is consulted,
 * and a visible record with an action the role lacks is 403.
 */
export type ActionTable = Readonly<Record<Role, readonly Action[]>>;

/** Per role, the input attributes it may write (`permitted` drops or refuses the rest). */
export type WritableTable<K extends string> = Readonly<Record<Role, readonly K[]>>;

/** What a policy reads of its caller: a request's `Caller`, or less (a user manager of the CLI). */
export type PolicyCaller = Pick<Caller, 'role'>;

/**
 * Everything about who may reach one resource, in its `<name>.policy.ts` (or under src/access), each rule
 * written once. Every allow/deny decision about the resource is asked of it as `can(caller, action,
 * target)`; the GraphQL shield map is derived from `graphql` (src/access/shield.ts).
 *
 * `A` names the resource's actions (the five of the contract, and any of its own, such as a lead's
 * `assign`), `F` the facts a decision may need about the record concerned (its company, the role a user
 * is given...), `C` what it reads of the caller.
 */
export interface ResourcePolicy<A extends string = Action, F = undefined, C extends PolicyCaller = Caller> {
  /** The resource's name (docs/roles.md). */
  name: string;
  /**
   * Who reaches its GraphQL root fields at all (`can(caller, 'reach', policy)`, asked by its shield rule)
   * and which fields and types are its. A type listed here is allowed to whoever reached it.
   */
  graphql?: {
    audience: (caller: C) => boolean;
    Query?: readonly string[];
    Mutation?: readonly string[];
    Subscription?: readonly string[];
    types?: readonly string[];
  };
  /** Which of the contract's actions each role may take on a record it sees. */
  actions?: ActionTable;
  /**
   * The rest of the decision, after the action table (for the contract's actions) or alone (for the
   * resource's own): the facts of the record concerned, when the answer depends on them.
   */
  decide?: (caller: C, action: A, facts: F | undefined) => boolean;
  /** The records a caller sees, as a `Where` over the resource's search document: its one entry point. */
  scope?: (caller: C) => Where;
  /** Per role, the input attributes it may write (`permitted`). */
  writable?: WritableTable<string>;
}

/** The action every policy answers for its GraphQL fields: may the caller reach them at all. */
export type Reach = 'reach';

/** A record (or one to be made) of a policy's resource, by the facts its decisions read. */
export interface About<A extends string, F, C extends PolicyCaller> {
  readonly policy: ResourcePolicy<A, F, C>;
  readonly facts: F;
}

/** What `can` is asked about: the resource as a whole (its policy), or one record of it (`about`). */
export type Target<A extends string, F, C extends PolicyCaller> = ResourcePolicy<A, F, C> | About<A, F, C>;

/** One record of `policy`'s resource, known by `facts`, as the target of `can`. */
export function about<A extends string, F, C extends PolicyCaller>(policy: ResourcePolicy<A, F, C>, facts: F): About<A, F, C> {
  return { policy, facts };
}

/**
 * The one question of the access layer: may `caller` take `action` on `target`? Answered by the target's
 * policy: `reach` by its GraphQL audience; one of the contract's actions by its action table, then by
 * `decide` when it has one; any other action by `decide` alone (no `decide`: denied). Nobody without a
 * caller may do anything.
 */
export function can<A extends string, F, C extends PolicyCaller>(caller: C | null | undefined, action: A | Reach, target: Target<A, F, C>): boolean {
  if (!caller) return false;
  const [policy, facts] = 'policy' in target ? [target.policy, target.facts] : [target, undefined];
  if (action === 'reach') return policy.graphql?.audience(caller) ?? false;
  if (TABLE_ACTIONS.has(action) && policy.actions && !(policy.actions[caller.role]?.includes(action as Action) ?? false)) return false;
  if (policy.decide) return policy.decide(caller, action as A, facts);
  return TABLE_ACTIONS.has(action) && policy.actions !== undefined;
}

/** `can`, as a 403 (`forbidden`) when the answer is no. */
export function authorize<A extends string, F, C extends PolicyCaller>(caller: C | null | undefined, action: A | Reach, target: Target<A, F, C>): void {
  if (!can(caller, action, target)) throw forbidden();
}

/** The attributes the caller's role may write, of a policy's `writable` table. */
export function writableBy<K extends string>(table: WritableTable<K>, caller: PolicyCaller): readonly K[] {
  return table[caller.role] ?? [];
}

/** A table giving every role the same actions, then the exceptions. */
export function actionTable(base: readonly Action[], exceptions: Partial<Record<Role, readonly Action[]>>): ActionTable {
  const table = {} as Record<Role, readonly Action[]>;
  for (const role of Object.values(Role)) table[role] = exceptions[role] ?? base;
  return table;
}
