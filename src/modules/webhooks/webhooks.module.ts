import type { AppModule } from '../module';
import { WebhookDeliveryFieldResolver, WebhookResolver } from './webhook.resolver';
import { webhookPolicy } from './webhook.policy';
import { createWebhookWorker, WEBHOOK_WORKER_LEADER } from './webhook.worker';

/** Webhook subscriptions and deliveries: the delivery worker runs in one process at a time, unless WEBHOOK_WORKER=false. */
export const webhooksModule: AppModule = {
  name: 'webhooks',
  resolvers: [WebhookResolver, WebhookDeliveryFieldResolver],
  policies: [webhookPolicy],
  jobs: [
    {
      name: 'webhook-worker',
      leader: WEBHOOK_WORKER_LEADER,
      enabled: (config) => config.webhooks.worker,
      create: ({ deps, schema }) => createWebhookWorker(deps.orm, deps, schema),
    },
  ],
};
