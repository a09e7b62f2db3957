import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';
import { companyOwnedActions, companyOwnedScope } from '../company/company-owned';
import { Territory } from './territory.entity';
import { territorySearch } from './territory.service';

/** Who reaches the territory fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const territoryPermissions = {
  Query: { territories: isAuthenticated, territory: isAuthenticated },
  Mutation: { createTerritory: isAuthenticated, updateTerritory: isAuthenticated, deleteTerritory: isAuthenticated },
  Territory: allow,
  TerritoryPage: allow,
};

/** Who reaches a territory; a company's own record: `companyOwnedActions` and `companyOwnedScope` (src/modules/company/company-owned.ts). */
export const territoryPolicy: ResourcePolicy = {
  rules: territoryPermissions,
  actions: companyOwnedActions,
  scope: companyOwnedScope,
  visible: { type: 'Territory', entity: Territory, doc: territorySearch },
};
