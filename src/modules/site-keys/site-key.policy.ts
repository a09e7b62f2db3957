import { authorize, type ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf, platformOperator } from '../../access/audience';
import { organisationAdmin, type Caller } from '../../auth/caller';
import { Role } from '../user/role';

/** What a decision about site keys reads: the company whose keys they are. */
export interface SiteKeyFacts {
  companyId: string;
}

/**
 * A company's publishable site keys (docs/lead-loop.md "Visitors ask a store"): any user reaches the
 * fields; `manage` (create, list, revoke) is a company admin's for its own company and the platform
 * operator's for any company. Everyone else is 403; a key of another company is 404 for a company admin.
 */
export const siteKeyPolicy: ResourcePolicy<'manage', SiteKeyFacts> = {
  name: 'site-keys',
  graphql: {
    audience: anyUser,
    Query: ['siteKeys'],
    Mutation: ['createSiteKey', 'revokeSiteKey'],
    types: ['SiteKey'],
  },
  decide: (caller, _action, facts) => {
    if (platformOperator(caller)) return true;
    return oneOf(Role.CompanyAdmin)(caller) && !!caller.companyId && (!facts || facts.companyId === caller.companyId);
  },
};

/** 403 unless the caller manages the keys of `companyId`. */
export function authorizeSiteKeys(caller: Caller | null | undefined, companyId: string): void {
  authorize(caller, 'manage', { policy: siteKeyPolicy, facts: { companyId } });
}

/** The companies whose keys the caller sees when it names none: its own (null: any, the operator). */
export function siteKeyCompany(caller: Caller): string | null {
  return platformOperator(caller) ? null : caller.companyId;
}

/**
 * Who a visitor's request acts as: the company's organisation (its admin's reach, no user), so the lead
 * it writes goes through the one lead create path (ownership, duplicate merge, routing, events, timers)
 * owned by the store's company. Only the public contact form (store-contact.service.ts) asks for it,
 * after the site key, origin and proof-of-work have passed.
 */
export function visitorCaller(companyId: string): Caller {
  return organisationAdmin({ companyId });
}
