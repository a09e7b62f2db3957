import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Who reaches the collection fields; scope and rights (`companyOwnedActions`) are applied in the service. */
export const collectionPermissions = {
  Query: { collections: isAuthenticated, collection: isAuthenticated },
  Mutation: { createCollection: isAuthenticated, updateCollection: isAuthenticated, deleteCollection: isAuthenticated },
  Collection: allow,
  CollectionPage: allow,
};
