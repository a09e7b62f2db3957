import { allow } from 'graphql-shield';
import { actionTable, ALL, READ } from '../../auth/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';

/** The platform operator manages every store, a retailer admin its retailer's; the rest read what they see. */
export const retailerLocationActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.RetailerAdmin]: ALL });

export const retailerLocationPermissions = {
  Query: { retailerLocations: isAuthenticated, retailerLocation: isAuthenticated },
  Mutation: { createRetailerLocation: isAuthenticated, updateRetailerLocation: isAuthenticated, deleteRetailerLocation: isAuthenticated },
  RetailerLocation: allow,
  RetailerLocationPage: allow,
  Hour: allow,
};
