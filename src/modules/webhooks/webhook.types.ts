import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** GraphQL names of the lead events (the wire names are `lead.created`...). */
export enum WebhookEvent {
  LeadCreated = 'lead.created',
  LeadUpdated = 'lead.updated',
  LeadAssigned = 'lead.assigned',
  LeadStatusChanged = 'lead.status_changed',
  LeadMerged = 'lead.merged',
  LeadActivityCreated = 'lead_activity.created',
}
registerEnumType(WebhookEvent, { name: 'WebhookEvent', description: 'Lead events; sent as `lead.created`, `lead.updated`, ... in the body.' });

@ObjectType({ description: 'A URL a company or retailer receives lead events at. Its secret is shown only when created or rotated.' })
export class WebhookEndpoint {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: '`Company` or `Retailer`.' })
  ownerType!: string;

  @Field(() => ID)
  ownerId!: string;

  @Field(() => String)
  url!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => [WebhookEvent])
  events!: WebhookEvent[];

  @Field(() => Boolean)
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: 'Why delivery stopped: disabled by an admin, or after failing too long.' })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'Failing without a success since then.' })
  failingSince!: Date | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType({ description: 'An endpoint with its signing secret: returned once, by create and rotate.' })
export class WebhookEndpointSecret {
  @Field(() => WebhookEndpoint)
  endpoint!: WebhookEndpoint;

  @Field(() => String, { description: 'HMAC-SHA256 key of the `Leadnet-Signature` header. Not shown again.' })
  secret!: string;
}

@InputType()
export class WebhookEndpointInput {
  @Field(() => String, { nullable: true, description: 'http(s) URL; required on create.' })
  url?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [WebhookEvent], { nullable: true, description: 'Required on create; at least one.' })
  events?: WebhookEvent[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Update only: true re-enables an endpoint (and clears its failure state).' })
  enabled?: boolean | null;
}

@ObjectType({ description: 'One HTTP attempt of a delivery.' })
export class WebhookDeliveryAttempt {
  @Field(() => Int)
  attempt!: number;

  @Field(() => Boolean)
  succeeded!: boolean;

  @Field(() => Int, { nullable: true })
  responseCode!: number | null;

  @Field(() => Int)
  durationMs!: number;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType({ description: 'One event for one endpoint: `pending` (retrying), `succeeded` or `failed` (gave up).' })
export class WebhookDelivery {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  endpointId!: string;

  @Field(() => ID, { description: 'The event id, also sent as the body `id` and the `Leadnet-Event-Id` header.' })
  eventId!: string;

  @Field(() => WebhookEvent)
  eventType!: WebhookEvent;

  @Field(() => ID)
  leadId!: string;

  @Field(() => String)
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => Date, { nullable: true })
  nextAttemptAt!: Date | null;

  @Field(() => Int, { nullable: true })
  lastResponseCode!: number | null;

  @Field(() => String, { nullable: true })
  lastError!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}
