import { allow } from 'graphql-shield';
import { actionTable, ALL, READ } from '../../auth/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';

/** Retailers are managed by the platform operator; everyone else reads the ones it sees. */
export const retailerActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

export const retailerPermissions = {
  Query: { retailers: isAuthenticated, retailer: isAuthenticated },
  Mutation: { createRetailer: isAuthenticated, updateRetailer: isAuthenticated, deleteRetailer: isAuthenticated },
  Retailer: allow,
  RetailerPage: allow,
};
