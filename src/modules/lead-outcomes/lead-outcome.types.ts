import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';

export enum LeadOutcomeResult {
  WON = 'won',
  LOST = 'lost',
}
registerEnumType(LeadOutcomeResult, {
  name: 'LeadOutcomeResult',
  description: 'What became of a lead (REST: `won`, `lost`).',
  valuesConfig: { WON: { description: 'A sale.' }, LOST: { description: 'No sale.' } },
});

/** A lead's outcome (docs/lead-loop.md "Outcomes"): one per lead, replaced when recorded again. */
@ObjectType({ description: 'What became of a lead: `won` or `lost`, with the amount (minor units and ISO 4217 currency), the lost reason and the date.' })
export class LeadOutcome {
  @Field(() => String, { description: '`won` or `lost`.' })
  result!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The amount in minor units of `currency` (cents for USD), an integer >= 0; null when none was given.' })
  amountMinor!: number | null;

  @Field(() => String, { nullable: true, description: 'The ISO 4217 code of the amount (e.g. `USD`); null when no amount was given.' })
  currency!: string | null;

  @Field(() => String, { nullable: true, description: 'Why the lead was lost, in words (at most 500 characters); null when none was given.' })
  lostReason!: string | null;

  @Field(() => String, { description: 'The day the lead was closed, `YYYY-MM-DD`.' })
  closedOn!: string;

  @Field(() => Date, { description: 'When the outcome was recorded.' })
  recordedAt!: Date;

  @Field(() => ID, { nullable: true, description: 'The user who recorded it (or whose API key did); null when unknown.' })
  recordedById!: string | null;
}

@InputType({ description: "A lead's outcome. Recording again replaces the lead's outcome." })
export class LeadOutcomeInput {
  @Field(() => LeadOutcomeResult, {
    nullable: true,
    description: 'Required (none: BAD_USER_INPUT `blank` on `result`): `WON` or `LOST` (REST: `won`, `lost`). Also sets the lead status to `Won` / `Lost` unless it already is.',
  })
  result?: LeadOutcomeResult | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The amount in minor units (an integer >= 0, at most 2^53 - 1); requires `currency`.' })
  amountMinor?: number | null;

  @Field(() => String, { nullable: true, description: 'An ISO 4217 currency code (e.g. `EUR`); required with an amount.' })
  currency?: string | null;

  @Field(() => String, { nullable: true, description: 'Why the lead was lost (at most 500 characters).' })
  lostReason?: string | null;

  @Field(() => String, { nullable: true, description: 'The day the lead was closed, `YYYY-MM-DD`; default today (UTC).' })
  closedOn?: string | null;
}

export enum LeadFunnelGroup {
  STORE = 'store',
  TERRITORY = 'territory',
  RETAILER = 'retailer',
  WEEK = 'week',
  SOURCE = 'source',
}
registerEnumType(LeadFunnelGroup, {
  name: 'LeadFunnelGroup',
  description: 'One way to group the funnel.',
  valuesConfig: {
    STORE: { description: "Offer figures by the offer's store; lead figures by the lead's store now." },
    TERRITORY: { description: 'The territory of that store.' },
    RETAILER: { description: 'The retailer of that store.' },
    WEEK: { description: "The ISO week (Monday, UTC) of the lead's creation." },
    SOURCE: { description: "The lead's `sourceType`." },
  },
});

@ObjectType({ description: 'Declines for one reason.' })
export class LeadFunnelReasonCount {
  @Field(() => String, { description: '`too_far`, `out_of_stock`, `no_capacity`, `not_our_products`, `duplicate` or `other`.' })
  reason!: string;

  @Field(() => Int, { description: 'Offers declined for it.' })
  count!: number;
}

@ObjectType({ description: 'The amounts of won outcomes in one currency.' })
export class LeadFunnelRevenue {
  @Field(() => String, { description: 'ISO 4217 code.' })
  currency!: string;

  @Field(() => GraphQLSafeInt, { description: 'Sum of the amounts, in minor units.' })
  amountMinor!: number;
}

@ObjectType({ description: 'The lead funnel of one group (docs/lead-loop.md "The funnel").' })
export class LeadFunnelRow {
  @Field(() => ID, { nullable: true, description: 'The store of the group (with `groupBy: STORE`); null otherwise, or for leads with no store.' })
  storeId!: string | null;

  @Field(() => ID, { nullable: true, description: "The territory of the group's store (with `groupBy: TERRITORY`); null otherwise." })
  territoryId!: string | null;

  @Field(() => ID, { nullable: true, description: "The retailer of the group's store (with `groupBy: RETAILER`); null otherwise." })
  retailerId!: string | null;

  @Field(() => String, { nullable: true, description: "The Monday (UTC) of the leads' creation week, `YYYY-MM-DD` (with `groupBy: WEEK`)." })
  week!: string | null;

  @Field(() => String, { nullable: true, description: "The leads' `sourceType` (with `groupBy: SOURCE`); null otherwise or for leads without one." })
  source!: string | null;

  @Field(() => Int, { description: 'Leads (the lead list\'s total for the same `where`, summed over the groups).' })
  leads!: number;

  @Field(() => Int, { description: 'Offers made to stores (every assignment is one).' })
  offered!: number;

  @Field(() => Int, { description: 'Offers accepted.' })
  accepted!: number;

  @Field(() => Int, { description: 'Offers declined.' })
  declined!: number;

  @Field(() => [LeadFunnelReasonCount], { description: 'Declined offers by reason, most first.' })
  declinedByReason!: LeadFunnelReasonCount[];

  @Field(() => Int, { description: 'Offers that lapsed unanswered.' })
  expired!: number;

  @Field(() => Int, { description: "Leads whose store answered the first-response timer (docs/response-times.md \"Answered\")." })
  contacted!: number;

  @Field(() => Int, { description: 'Leads with a `won` outcome.' })
  won!: number;

  @Field(() => Int, { description: 'Leads with a `lost` outcome.' })
  lost!: number;

  @Field(() => [LeadFunnelRevenue], { description: 'The amounts of won outcomes, per currency (never added across currencies).' })
  revenue!: LeadFunnelRevenue[];

  @Field(() => Int, { nullable: true, description: 'Median seconds from an offer to its acceptance over the accepted offers (nearest rank, from log-scale buckets: within 4.9%, then rounded to a second; docs/lead-loop.md); null with none.' })
  medianSecondsToAccept!: number | null;
}
