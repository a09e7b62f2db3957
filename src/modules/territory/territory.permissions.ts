import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Who reaches the territory fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const territoryPermissions = {
  Query: { territories: isAuthenticated, territory: isAuthenticated },
  Mutation: { createTerritory: isAuthenticated, updateTerritory: isAuthenticated, deleteTerritory: isAuthenticated },
  Territory: allow,
  TerritoryPage: allow,
};
