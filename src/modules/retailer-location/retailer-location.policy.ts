import { allow } from 'graphql-shield';
import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { isCompanyRole } from '../user/role';
import { RetailerLocation } from './retailer-location.entity';
import { retailerLocationSearch } from './retailer-location.search';

/** The platform operator manages every store, a retailer admin its retailer's; the rest read what they see. */
export const retailerLocationActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.RetailerAdmin]: ALL });

export const retailerLocationPermissions = {
  Query: { retailerLocations: isAuthenticated, retailerLocation: isAuthenticated },
  Mutation: { createRetailerLocation: isAuthenticated, updateRetailerLocation: isAuthenticated, deleteRetailerLocation: isAuthenticated },
  RetailerLocation: allow,
  RetailerLocationPage: allow,
  Hour: allow,
};

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
      return isCompanyRole(caller.role) ? { company_ids: caller.companyId ?? [] } : { id: [] };
  }
}

/** Who reaches a retailer location, what each role may do with one it sees, and which ones it sees. */
export const retailerLocationPolicy: ResourcePolicy = {
  rules: retailerLocationPermissions,
  actions: retailerLocationActions,
  scope: retailerLocationScope,
  visible: { type: 'RetailerLocation', entity: RetailerLocation, doc: retailerLocationSearch },
};
