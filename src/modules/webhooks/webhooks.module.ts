import type { AppModule } from '../module';
import { WebhookDeliveryFieldResolver, WebhookResolver } from './webhook.resolver';
import { webhookPolicy } from './webhook.policy';

/** Webhook subscriptions and deliveries; the delivery worker is started by src/app.ts. */
export const webhooksModule: AppModule = {
  name: 'webhooks',
  resolvers: [WebhookResolver, WebhookDeliveryFieldResolver],
  policies: [webhookPolicy],
};
