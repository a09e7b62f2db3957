import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

/** Why a store declines an offer (docs/lead-loop.md); `other` needs a note. */
export const DECLINE_REASONS = ['too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other'] as const;
export type DeclineReasonValue = (typeof DECLINE_REASONS)[number];

export enum DeclineReason {
  TOO_FAR = 'too_far',
  OUT_OF_STOCK = 'out_of_stock',
  NO_CAPACITY = 'no_capacity',
  NOT_OUR_PRODUCTS = 'not_our_products',
  DUPLICATE = 'duplicate',
  OTHER = 'other',
}
registerEnumType(DeclineReason, {
  name: 'DeclineReason',
  description: 'Why a store declines a lead offered to it (REST: the lower-case value, e.g. `too_far`).',
  valuesConfig: {
    TOO_FAR: { description: 'The customer is too far from the store.' },
    OUT_OF_STOCK: { description: 'The store does not have the products in stock.' },
    NO_CAPACITY: { description: 'The store cannot take the lead on now.' },
    NOT_OUR_PRODUCTS: { description: 'The store does not sell what the customer asks for.' },
    DUPLICATE: { description: 'The store already has this customer.' },
    OTHER: { description: 'Another reason, given in the note (required).' },
  },
});

/** The states of an offer (docs/lead-loop.md). */
export const OFFER_STATES = ['open', 'accepted', 'declined', 'expired', 'withdrawn'] as const;
export type OfferStateValue = (typeof OFFER_STATES)[number];

export enum LeadOfferState {
  OPEN = 'open',
  ACCEPTED = 'accepted',
  DECLINED = 'declined',
  EXPIRED = 'expired',
  WITHDRAWN = 'withdrawn',
}
registerEnumType(LeadOfferState, {
  name: 'LeadOfferState',
  description: 'Where an offer of a lead to a store stands (docs/lead-loop.md).',
  valuesConfig: {
    OPEN: { description: 'Waiting for the store to accept or decline.' },
    ACCEPTED: { description: 'The store accepted the lead.' },
    DECLINED: { description: 'The store declined the lead; it was handed over or escalated.' },
    EXPIRED: { description: "Not answered within the company's acceptance window; the lead was handed over or escalated." },
    WITHDRAWN: { description: 'The lead was assigned elsewhere (or unassigned) while the offer was open.' },
  },
});

/** Why a declined or lapsed offer's lead was not handed over (docs/lead-loop.md "Escalation"). */
export enum OfferEscalation {
  MAX_HANDOVERS = 'max_handovers',
  NO_ELIGIBLE_STORE = 'no_eligible_store',
}
registerEnumType(OfferEscalation, {
  name: 'OfferEscalation',
  description: 'Why a lead was escalated instead of handed over (REST and events: the lower-case value, e.g. `max_handovers`).',
  valuesConfig: {
    MAX_HANDOVERS: { description: "The lead had already been handed over the company's maximum number of times (`maxHandovers`)." },
    NO_ELIGIBLE_STORE: { description: 'No store was left that the routing rules could hand it to.' },
  },
});

/** A `lead_offers` row as read. */
export interface LeadOfferRow {
  id: string;
  lead_id: string;
  store_id: string;
  company_id: string;
  offered_at: Date;
  respond_by: Date | null;
  state: OfferStateValue;
  answered_at: Date | null;
  answered_by_id: string | null;
  decline_reason: DeclineReasonValue | null;
  decline_note: string | null;
  handovers: number;
  escalation: 'max_handovers' | 'no_eligible_store' | null;
}

@ObjectType({ description: 'The offer of a lead to a store: every assignment to a store is one, which the store accepts or declines (docs/lead-loop.md).' })
export class LeadOffer {
  @Field(() => ID, { description: "The offer's id (the `offer_id` of its events)." })
  id!: string;

  @Field(() => ID, { description: 'The store (company retailer location) it was offered to.' })
  storeId!: string;

  @Field(() => LeadOfferState, { description: 'Where it stands.' })
  state!: LeadOfferState;

  @Field(() => Date, { description: 'When it was offered (ISO 8601 date-time, UTC).' })
  offeredAt!: Date;

  @Field(() => Date, { nullable: true, description: "When it lapses unanswered (the company's acceptance window in the store's business hours); null when offers do not lapse or it is not computed yet." })
  respondBy!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was accepted, declined, expired or withdrawn; null while open.' })
  answeredAt!: Date | null;

  @Field(() => DeclineReason, { nullable: true, description: 'Why it was declined; null unless declined.' })
  declineReason!: DeclineReason | null;

  @Field(() => String, { nullable: true, description: 'The note given with the decline; null when none.' })
  declineNote!: string | null;

  @Field(() => Int, { description: 'How many times the lead was handed over (declined or lapsed) before this offer.' })
  handovers!: number;

  @Field(() => OfferEscalation, {
    nullable: true,
    description: 'Set when this offer was declined or lapsed and the lead could not be handed over: it was escalated to the territory manager (else the company admins) for reassignment; null otherwise.',
  })
  escalation!: OfferEscalation | null;
}

export function leadOfferOf(row: LeadOfferRow): LeadOffer {
  return {
    id: row.id,
    storeId: row.store_id,
    state: row.state as LeadOfferState,
    offeredAt: new Date(row.offered_at),
    respondBy: row.respond_by === null ? null : new Date(row.respond_by),
    answeredAt: row.answered_at === null ? null : new Date(row.answered_at),
    declineReason: row.decline_reason as DeclineReason | null,
    declineNote: row.decline_note,
    handovers: row.handovers,
    escalation: (row.escalation ?? null) as OfferEscalation | null,
  };
}
