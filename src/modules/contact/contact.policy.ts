import type { ResourcePolicy } from '../../access/policy';
import { anyUser } from '../../access/audience';

/** Contact objects (addresses, e-mails, phone numbers) are reached only through a record the caller may see. */
export const contactPolicy: ResourcePolicy = {
  name: 'contact',
  graphql: { audience: anyUser, types: ['Location', 'Email', 'PhoneNumber'] },
};
