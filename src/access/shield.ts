import { allow, deny, rule, shield } from 'graphql-shield';
import type { IRule } from 'graphql-shield';
import { forbidden, unauthenticated } from '../errors';
import { can, type ResourcePolicy } from './policy';
import type { AccessContext } from './visibility';

const ROOTS = ['Query', 'Mutation', 'Subscription'] as const;

/**
 * The graphql-shield map of these policies, derived from each one's `graphql` part: every root field it
 * lists asks `can(caller, 'reach', policy)` (401 without a caller, 403 when the answer is no), every type
 * it lists is open to whoever reached it. A field claimed by two policies is a programming error. What no
 * policy lists is denied (the shield's fallback).
 */
export function shieldRules(policies: readonly ResourcePolicy<any, any, any>[]): Record<string, any> {
  const map: Record<string, any> = {};
  const owner = new Map<string, string>();
  const claim = (key: string, policy: ResourcePolicy<any, any, any>) => {
    const before = owner.get(key);
    if (before && before !== policy.name) throw new Error(`${key} is in the policies of both ${before} and ${policy.name}`);
    owner.set(key, policy.name);
  };
  for (const policy of policies) {
    if (!policy.graphql) continue;
    const reach = reachRule(policy);
    for (const root of ROOTS) {
      for (const field of policy.graphql[root] ?? []) {
        claim(`${root}.${field}`, policy);
        (map[root] ??= {})[field] = reach;
      }
    }
    for (const type of policy.graphql.types ?? []) {
      claim(type, policy);
      map[type] = allow;
    }
  }
  return map;
}

/** The shield rule of a policy's root fields, cached per request (one decision per policy and request). */
function reachRule(policy: ResourcePolicy<any, any, any>): IRule {
  return rule(`reach:${policy.name}`, { cache: 'contextual' })((_parent, _args, ctx: AccessContext) => {
    if (!ctx.caller) return unauthenticated();
    return can(ctx.caller, 'reach', policy) || forbidden();
  });
}

/** graphql-shield over `rules`: default deny (403), errors of the resolvers passed through. */
export function shieldOf(rules: Record<string, any>) {
  return shield(rules, { fallbackRule: deny, allowExternalErrors: true, fallbackError: () => forbidden() });
}
