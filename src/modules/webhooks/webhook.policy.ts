import { authorize, type ResourcePolicy } from '../../access/policy';
import { anyUser, oneOf } from '../../access/audience';
import type { Caller } from '../../auth/caller';
import { Role } from '../user/role';
import type { WebhookOwner } from './webhook.repository';


/**
 * Webhooks: any caller reaches the fields; `manage` (an organisation's endpoints and their delivery
 * log) is the admins' of a company or retailer, for their organisation (any other role is 403; an
 * endpoint of another organisation is 404: it is outside `webhookOwner`'s rows).
 */
export const webhookPolicy: ResourcePolicy<'manage'> = {
  name: 'webhooks',
  graphql: {
    audience: anyUser,
    Query: ['webhookEndpoints', 'webhookEndpoint', 'webhookDeliveries'],
    Mutation: ['createWebhookEndpoint', 'updateWebhookEndpoint', 'disableWebhookEndpoint', 'rotateWebhookSecret', 'redeliverWebhook'],
    types: ['WebhookEndpoint', 'WebhookEndpointSecret', 'WebhookDelivery', 'WebhookDeliveryAttempt'],
  },
  decide: (caller) => webhookOwnerOf(caller) !== null,
};

function webhookOwnerOf(caller: Caller): WebhookOwner | null {
  if (oneOf(Role.CompanyAdmin)(caller) && caller.companyId) return { column: 'owner_company_id', id: caller.companyId };
  if (oneOf(Role.RetailerAdmin)(caller) && caller.retailerId) return { column: 'owner_retailer_id', id: caller.retailerId };
  return null;
}

/** The organisation whose endpoints the caller manages; 403 when it may not `manage`. */
export function webhookOwner(caller: Caller): WebhookOwner {
  authorize(caller, 'manage', webhookPolicy);
  return webhookOwnerOf(caller)!;
}
