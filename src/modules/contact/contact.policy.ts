import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';

/** Contact objects are only reached through a record the caller may see. */
export const contactPermissions = {
  Location: allow,
  Email: allow,
  PhoneNumber: allow,
};

/** Contact objects are reached only through a record the caller may see. */
export const contactPolicy: ResourcePolicy = {
  rules: contactPermissions,
};
