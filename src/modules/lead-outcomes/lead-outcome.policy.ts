import type { ResourcePolicy } from '../../access/policy';
import { networkUser } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';

/** What deciding `record` reads of a lead the caller sees: its owner and its store now. */
export interface LeadOutcomeFacts {
  ownerCompanyId: string | null;
  ownerRetailerId: string | null;
  store: { id: string; retailerId: string | null; retailerLocationId: string | null } | null;
}

/**
 * The users of a store: the set whose status change or activity answers its first-response timer
 * (docs/response-times.md "Answered", `ANSWERED_BY_THE_STORE`): its company location users and sales
 * associates, the store managers of its retailer location and the admins of its retailer.
 */
export function isStoreUser(caller: Caller, store: NonNullable<LeadOutcomeFacts['store']>): boolean {
  switch (caller.role) {
    case Role.CompanyLocationUser:
    case Role.CompanySalesAssociate:
      return caller.companyRetailerLocationIds.includes(store.id);
    case Role.RetailerStoreManager:
      return store.retailerLocationId !== null && caller.retailerLocationIds.includes(store.retailerLocationId);
    case Role.RetailerAdmin:
      return store.retailerId !== null && caller.retailerId === store.retailerId;
    default:
      return false;
  }
}

/** The admins of the lead's owner (the company or retailer that owns it). */
function isOwnerAdmin(caller: Caller, facts: LeadOutcomeFacts): boolean {
  if (caller.role === Role.CompanyAdmin) return facts.ownerCompanyId !== null && caller.companyId === facts.ownerCompanyId;
  if (caller.role === Role.RetailerAdmin) return facts.ownerRetailerId !== null && caller.retailerId === facts.ownerRetailerId;
  return false;
}

/** `record`: write a lead's outcome; `funnel`: read the funnel (scoped as the lead list). */
export type LeadOutcomeAction = 'record' | 'funnel';

/**
 * Outcomes and the funnel (docs/lead-loop.md): a lead's outcome is recorded by the users of its store
 * (and their API keys) and by the admins of its owner; others who see the lead get 403 (404 when they do
 * not see it: the lead scope decides that first). The funnel reads leads by the lead list's scope, so
 * it is for whoever lists leads.
 */
export const leadOutcomePolicy: ResourcePolicy<LeadOutcomeAction, LeadOutcomeFacts> = {
  name: 'lead-outcome',
  graphql: {
    audience: networkUser,
    Query: ['leadFunnel'],
    Mutation: ['recordLeadOutcome'],
    types: ['LeadOutcome', 'LeadFunnelRow', 'LeadFunnelReasonCount', 'LeadFunnelRevenue'],
  },
  decide: (caller, action, facts) => {
    if (action === 'funnel') return networkUser(caller);
    if (!facts) return false;
    return isOwnerAdmin(caller, facts) || (facts.store !== null && isStoreUser(caller, facts.store));
  },
};
