import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Imports: any caller may ask; the resolver admits the platform operator and the company's admins (404/403 otherwise). */
export const importPermissions = {
  Mutation: { importLocations: isAuthenticated, importProducts: isAuthenticated },
  ImportReport: allow,
  ImportRowError: allow,
};

/** Who reaches the imports (the resolver admits the operator and the company's admins). */
export const importPolicy: ResourcePolicy = {
  rules: importPermissions,
};
