import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { JSONScalar } from '../../graphql/common';
import { Lead } from './lead.entity';

/** The `type` discriminator values of SPEC 2.2 a client may write (single-table; a CHECK constraint holds the list with the system's). */
export const LEAD_ACTIVITY_TYPES = [
  'LeadActivity::InboundCall',
  'LeadActivity::OutboundCall',
  'LeadActivity::OutboundEmail',
  'LeadActivity::Voicemail',
  'LeadActivity::Note',
  'LeadActivity::SampleRequest',
  'LeadActivity::QuoteRequest',
  'LeadActivity::Referral',
  'LeadActivity::Purchase',
  'LeadActivity::Assignment',
  'LeadActivity::StatusChange',
] as const;
/**
 * Types only the system writes (docs/lead-loop.md): a client sending one gets 422 `invalid` on `type`,
 * as for any unknown type. They are read like the others.
 */
export const SYSTEM_LEAD_ACTIVITY_TYPES = ['LeadActivity::OfferAccepted', 'LeadActivity::OfferDeclined', 'LeadActivity::OfferExpired', 'LeadActivity::Outcome'] as const;
export type SystemLeadActivityType = (typeof SYSTEM_LEAD_ACTIVITY_TYPES)[number];
export type LeadActivityType = (typeof LEAD_ACTIVITY_TYPES)[number] | SystemLeadActivityType;

/** An event on a lead's timeline. */
@ObjectType({ description: "An event on a lead's timeline: a call, a note, a quote request, a status change... Visible to whoever sees its lead." })
// List indexes: migrations/Migration20261124160000_list_order_indexes.ts and Migration20261124161000_lead_activity_owner_keys.ts.
@Entity({ tableName: 'lead_activities' })
export class LeadActivity extends BaseEntity {
  @ManyToOne(() => Lead, { deleteRule: 'cascade' })
  lead!: Lead;

  @Field(() => String, { description: 'One of the SPEC 2.2 types, e.g. `LeadActivity::QuoteRequest`.' })
  @Index()
  @Property({ type: 'string' })
  type!: LeadActivityType;

  @Field(() => JSONScalar, { nullable: true, description: 'Type-specific payload, exactly as stored.' })
  @Property({ type: 'json', nullable: true })
  data?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'The kind of record `sourceId` names, e.g. `CompanyRetailerLocation`.' })
  @Property({ type: 'string', nullable: true })
  sourceType?: string | null;

  @Field(() => ID, { nullable: true, description: 'Where the activity came from.' })
  @Property({ type: 'uuid', nullable: true })
  sourceId?: string | null;

  @Field(() => String, { nullable: true, description: "The activity's id in the partner's CRM." })
  @Property({ type: 'string', nullable: true })
  crmId?: string | null;

  @Field(() => String, { nullable: true, description: 'The CRM it was synced to.' })
  @Property({ type: 'string', nullable: true })
  crmProvider?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'The JSON object the CRM integration keeps with the activity.' })
  @Property({ type: 'json', nullable: true })
  crmDataCache?: Record<string, unknown> | null;

  /** Insertion order: breaks created_at ties so a timeline reads the same every time. */
  @Property({ type: 'bigint', generated: 'by default as identity' })
  seq!: string & Opt;

  get leadId(): string & Opt {
    return this.lead.id;
  }
}
