import { actionTable, ALL, READ, type Action, type ResourcePolicy } from '../../access/policy';
import { anyUser, companyUser, platformOperator } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';

/** The platform operator manages every store, a retailer admin its retailer's; the rest read what they see. */
export const retailerLocationActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.RetailerAdmin]: ALL });

/**
 * The operator sees every store; a retailer admin its retailer's; a store manager its assigned ones;
 * company users the stores of the retailers their company works with (to link them to CRLs).
 */
export function retailerLocationScope(caller: Caller): Where {
  switch (caller.role) {
    case Role.PlatformOperator:
      return {};
    case Role.RetailerAdmin:
      return { retailer_id: caller.retailerId ?? [] };
    case Role.RetailerStoreManager:
      return { id: caller.retailerLocationIds };
    default:
      return companyUser(caller) ? { company_ids: caller.companyId ?? [] } : { id: [] };
  }
}

/** What a decision about a retailer location reads: the retailer it is (to be) made for. */
export interface RetailerLocationFacts {
  retailerId: string | null | undefined;
}

/**
 * Who reaches a retailer location, what each role may do with one it sees, and which ones it sees. The
 * operator creates one for any retailer, a retailer admin for its own only (another retailer is 403).
 */
export const retailerLocationPolicy: ResourcePolicy<Action, RetailerLocationFacts> = {
  name: 'retailer-location',
  graphql: {
    audience: anyUser,
    Query: ['retailerLocations', 'retailerLocation'],
    Mutation: ['createRetailerLocation', 'updateRetailerLocation', 'deleteRetailerLocation'],
    types: ['RetailerLocation', 'RetailerLocationPage', 'Hour'],
  },
  actions: retailerLocationActions,
  decide: (caller, action, store) => action !== 'create' || !store || platformOperator(caller) || store.retailerId === caller.retailerId,
  scope: retailerLocationScope,
};
