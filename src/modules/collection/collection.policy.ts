import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';
import { companyOwnedActions, companyOwnedScope } from '../company/company-owned';
import { Collection } from './collection.entity';
import { collectionSearch } from './collection.service';

/** Who reaches the collection fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const collectionPermissions = {
  Query: { collections: isAuthenticated, collection: isAuthenticated },
  Mutation: { createCollection: isAuthenticated, updateCollection: isAuthenticated, deleteCollection: isAuthenticated },
  Collection: allow,
  CollectionPage: allow,
};

/** Who reaches a collection; a company's own record: `companyOwnedActions` and `companyOwnedScope` (src/modules/company/company-owned.ts). */
export const collectionPolicy: ResourcePolicy = {
  rules: collectionPermissions,
  actions: companyOwnedActions,
  scope: companyOwnedScope,
  visible: { type: 'Collection', entity: Collection, doc: collectionSearch },
};
