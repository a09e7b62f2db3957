import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { loadAttempts, WebhookService } from './webhook.service';
import { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint, WebhookEndpointInput, WebhookEndpointSecret } from './webhook.types';

const ADMINS = 'Company and retailer admins, for their organisation.';

@Resolver(() => WebhookEndpoint)
export class WebhookResolver {
  @Query(() => [WebhookEndpoint], { description: `The webhook endpoints of the caller's organisation. ${ADMINS}` })
  webhookEndpoints(@Ctx() ctx: Context) {
    return new WebhookService(ctx).list();
  }

  @Query(() => WebhookEndpoint, { description: `One webhook endpoint of the caller's organisation. ${ADMINS}` })
  webhookEndpoint(@Arg('id', () => ID, { description: "The endpoint (UUID); one of another organisation is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    return new WebhookService(ctx).get(id);
  }

  @Query(() => [WebhookDelivery], { description: `An endpoint's delivery log, newest first (status: pending, succeeded, failed). ${ADMINS}` })
  webhookDeliveries(
    @Arg('endpointId', () => ID, { description: 'The endpoint (UUID) whose deliveries to list.' }) endpointId: string,
    @Arg('status', () => String, { nullable: true, description: 'Only deliveries in this status: `pending`, `succeeded` or `failed` (default: all).' }) status: string | null,
    @Arg('limit', () => Int, { defaultValue: 50, description: 'At most 200.' }) limit: number,
    @Ctx() ctx: Context,
  ) {
    return new WebhookService(ctx).deliveries(endpointId, status, limit);
  }

  @Mutation(() => WebhookEndpointSecret, { description: `A new endpoint; the answer holds its secret, shown only now. ${ADMINS}` })
  createWebhookEndpoint(@Arg('input', () => WebhookEndpointInput, { description: "The new webhook endpoint's attributes." }) input: WebhookEndpointInput, @Ctx() ctx: Context) {
    return new WebhookService(ctx).create(input);
  }

  @Mutation(() => WebhookEndpoint, { description: `Changes the URL, events, description; \`enabled: true\` re-enables. ${ADMINS}` })
  updateWebhookEndpoint(@Arg('id', () => ID, { description: "The webhook endpoint to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => WebhookEndpointInput, { description: 'The attributes to change; those not sent keep their values.' }) input: WebhookEndpointInput, @Ctx() ctx: Context) {
    return new WebhookService(ctx).update(id, input);
  }

  @Mutation(() => WebhookEndpoint, { description: `Stops deliveries to the endpoint (pending ones wait until it is enabled again). ${ADMINS}` })
  disableWebhookEndpoint(@Arg('id', () => ID, { description: "The endpoint to disable (UUID)." }) id: string, @Ctx() ctx: Context) {
    return new WebhookService(ctx).disable(id);
  }

  @Mutation(() => WebhookEndpointSecret, { description: `A new secret; the old one stops signing at once. ${ADMINS}` })
  rotateWebhookSecret(@Arg('id', () => ID, { description: "The endpoint whose secret is replaced (UUID)." }) id: string, @Ctx() ctx: Context) {
    return new WebhookService(ctx).rotateSecret(id);
  }

  @Mutation(() => WebhookDelivery, { description: `Sends a delivery again on the worker's next round. ${ADMINS}` })
  redeliverWebhook(@Arg('deliveryId', () => ID, { description: 'The delivery (UUID) to send again, as `webhookDeliveries` lists it.' }) deliveryId: string, @Ctx() ctx: Context) {
    return new WebhookService(ctx).redeliver(deliveryId);
  }
}

@Resolver(() => WebhookDelivery)
export class WebhookDeliveryFieldResolver {
  @FieldResolver(() => [WebhookDeliveryAttempt], { description: 'Every HTTP attempt, first first.' })
  attemptLog(@Root() delivery: WebhookDelivery, @Ctx() ctx: Context) {
    return ctx.loaders.custom<string, WebhookDeliveryAttempt[]>('webhook.attempts', (ids) => loadAttempts(ctx.em, ids)).load(delivery.id);
  }
}
