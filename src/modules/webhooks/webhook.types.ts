import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** GraphQL names of the lead events (the wire names are `lead.created`...). */
export enum WebhookEvent {
  LeadCreated = 'lead.created',
  LeadUpdated = 'lead.updated',
  LeadAssigned = 'lead.assigned',
  LeadStatusChanged = 'lead.status_changed',
  LeadMerged = 'lead.merged',
  LeadActivityCreated = 'lead_activity.created',
  LeadSlaBreached = 'lead.sla_breached',
  LeadOffered = 'lead.offered',
  LeadAccepted = 'lead.accepted',
  LeadDeclined = 'lead.declined',
  LeadOfferExpired = 'lead.offer_expired',
  LeadOutcomeRecorded = 'lead.outcome_recorded',
  LeadErased = 'lead.erased',
}
registerEnumType(WebhookEvent, {
  name: 'WebhookEvent',
  description: 'Lead events; sent as `lead.created`, `lead.updated`, ... in the body. Existing names (new enums use SCREAMING_SNAKE_CASE).',
  valuesConfig: {
    LeadCreated: { description: '`lead.created`: a lead was created (not when a create merged into an existing one).' },
    LeadUpdated: { description: "`lead.updated`: a lead's attributes or contacts changed." },
    LeadAssigned: { description: '`lead.assigned`: a lead got a new assignee, by a write or by routing.' },
    LeadStatusChanged: { description: "`lead.status_changed`: a lead's status changed." },
    LeadMerged: { description: '`lead.merged`: a create merged into this existing lead (PRODUCT.md 5).' },
    LeadSlaBreached: { description: '`lead.sla_breached`: a lead was not answered within its company\'s first-response time (docs/response-times.md).' },
    LeadActivityCreated: { description: "`lead_activity.created`: an activity was added to a lead's timeline." },
    LeadOffered: { description: '`lead.offered`: a lead was offered to a store (every assignment to a store is an offer; docs/lead-loop.md).' },
    LeadAccepted: { description: '`lead.accepted`: the offered store accepted the lead.' },
    LeadDeclined: { description: '`lead.declined`: the offered store declined the lead (with a reason); it is handed to the next store or escalated.' },
    LeadOfferExpired: { description: "`lead.offer_expired`: an offer was not answered within the company's acceptance window; the lead is handed over or escalated." },
    LeadOutcomeRecorded: { description: '`lead.outcome_recorded`: the won or lost outcome of a lead was recorded.' },
    LeadErased: { description: "`lead.erased`: the lead's personal fields were erased (docs/personal-data.md); the body's `lead` is `{\"id\"}` only: erase your copy." },
  },
});

@ObjectType({ description: 'A URL a company or retailer receives lead events at. Its secret is shown only when created or rotated.' })
export class WebhookEndpoint {
  @Field(() => ID, { description: "The endpoint's id." })
  id!: string;

  @Field(() => String, { description: '`Company` or `Retailer`.' })
  ownerType!: string;

  @Field(() => ID, { description: 'The company or retailer whose lead events it receives.' })
  ownerId!: string;

  @Field(() => String, { description: 'Where events are POSTed (http or https).' })
  url!: string;

  @Field(() => String, { nullable: true, description: 'A note for the admins; null when none.' })
  description!: string | null;

  @Field(() => [WebhookEvent], { description: 'The event types it receives.' })
  events!: WebhookEvent[];

  @Field(() => Boolean, { description: 'Events are delivered; false after `disableWebhookEndpoint` or too long failing.' })
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: 'Why delivery stopped: disabled by an admin, or after failing too long.' })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'Failing without a success since then.' })
  failingSince!: Date | null;

  @Field(() => Date, { description: 'When it was created (ISO 8601 date-time, UTC).' })
  createdAt!: Date;

  @Field(() => Date, { description: 'When it last changed (ISO 8601 date-time, UTC).' })
  updatedAt!: Date;
}

@ObjectType({ description: 'An endpoint with its signing secret: returned once, by create and rotate.' })
export class WebhookEndpointSecret {
  @Field(() => WebhookEndpoint, { description: 'The endpoint.' })
  endpoint!: WebhookEndpoint;

  @Field(() => String, { description: 'HMAC-SHA256 key of the `Leadnet-Signature` header. Not shown again.' })
  secret!: string;
}

@InputType({ description: "An endpoint's writable attributes; on update, fields not sent keep their values." })
export class WebhookEndpointInput {
  @Field(() => String, { nullable: true, description: 'http(s) URL; required on create.' })
  url?: string | null;

  @Field(() => String, { nullable: true, description: 'A note for the admins, e.g. "CRM sync".' })
  description?: string | null;

  @Field(() => [WebhookEvent], { nullable: true, description: 'Required on create; at least one.' })
  events?: WebhookEvent[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Update only: true re-enables an endpoint (and clears its failure state).' })
  enabled?: boolean | null;
}

@ObjectType({ description: 'One HTTP attempt of a delivery.' })
export class WebhookDeliveryAttempt {
  @Field(() => Int, { description: 'Its number, from 1.' })
  attempt!: number;

  @Field(() => Boolean, { description: 'The endpoint answered 2xx in time.' })
  succeeded!: boolean;

  @Field(() => Int, { nullable: true, description: 'The HTTP status the endpoint answered; null when it did not answer.' })
  responseCode!: number | null;

  @Field(() => Int, { description: 'How long the request took, in milliseconds.' })
  durationMs!: number;

  @Field(() => String, { nullable: true, description: 'Why it failed (timeout, connection refused, the status); null on success.' })
  error!: string | null;

  @Field(() => Date, { description: 'When it was made (ISO 8601 date-time, UTC).' })
  createdAt!: Date;
}

@ObjectType({ description: 'One event for one endpoint: `pending` (retrying), `succeeded` or `failed` (gave up).' })
export class WebhookDelivery {
  @Field(() => ID, { description: "The delivery's id, for `redeliverWebhook`." })
  id!: string;

  @Field(() => ID, { description: 'The endpoint it is for.' })
  endpointId!: string;

  @Field(() => ID, { description: 'The event id, also sent as the body `id` and the `Leadnet-Event-Id` header.' })
  eventId!: string;

  @Field(() => WebhookEvent, { description: 'The event type.' })
  eventType!: WebhookEvent;

  @Field(() => ID, { description: 'The lead the event is about.' })
  leadId!: string;

  @Field(() => String, { description: '`pending` (waiting or retrying), `succeeded`, or `failed` (retries gave up).' })
  status!: string;

  @Field(() => Int, { description: 'HTTP attempts made so far.' })
  attempts!: number;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null once it succeeded or failed.' })
  nextAttemptAt!: Date | null;

  @Field(() => Int, { nullable: true, description: 'The HTTP status of the last attempt; null when none answered.' })
  lastResponseCode!: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed; null when it succeeded or none was made.' })
  lastError!: string | null;

  @Field(() => Date, { description: 'When the event was queued for the endpoint (ISO 8601 date-time, UTC).' })
  createdAt!: Date;

  @Field(() => Date, { description: 'When the delivery last changed (ISO 8601 date-time, UTC).' })
  updatedAt!: Date;
}
