import type { ResourcePolicy } from '../../access/policy';
import { allow } from 'graphql-shield';
import { isAuthenticated } from '../../graphql/rules';

/** Webhooks: any caller may ask; the service admits the admins of the endpoint's organisation (403/404 otherwise). */
export const webhookPermissions = {
  Query: { webhookEndpoints: isAuthenticated, webhookEndpoint: isAuthenticated, webhookDeliveries: isAuthenticated },
  Mutation: {
    createWebhookEndpoint: isAuthenticated,
    updateWebhookEndpoint: isAuthenticated,
    disableWebhookEndpoint: isAuthenticated,
    rotateWebhookSecret: isAuthenticated,
    redeliverWebhook: isAuthenticated,
  },
  WebhookEndpoint: allow,
  WebhookEndpointSecret: allow,
  WebhookDelivery: allow,
  WebhookDeliveryAttempt: allow,
};

/** Who reaches webhooks (the service admits the admins of the endpoint's organisation). */
export const webhookPolicy: ResourcePolicy = {
  rules: webhookPermissions,
};
