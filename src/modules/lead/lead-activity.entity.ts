import { Entity, Index, ManyToOne, Property } from '@mikro-orm/core';
import { ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Lead } from './lead.entity';

/** The `type` discriminator values of SPEC 2.2 (single-table; a CHECK constraint holds the list). */
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
export type LeadActivityType = (typeof LEAD_ACTIVITY_TYPES)[number];

/** An event on a lead's timeline. */
@ObjectType()
@Entity({ tableName: 'lead_activities' })
@Index({ properties: ['lead', 'createdAt'] })
export class LeadActivity extends BaseEntity {
  @ManyToOne(() => Lead, { deleteRule: 'cascade' })
  lead!: Lead;

  @Index()
  @Property({ type: 'string' })
  type!: LeadActivityType;

  @Property({ type: 'json', nullable: true })
  data?: Record<string, unknown> | null;

  @Property({ type: 'string', nullable: true })
  sourceType?: string | null;

  @Property({ type: 'uuid', nullable: true })
  sourceId?: string | null;

  @Property({ type: 'string', nullable: true })
  crmId?: string | null;

  @Property({ type: 'string', nullable: true })
  crmProvider?: string | null;

  @Property({ type: 'json', nullable: true })
  crmDataCache?: Record<string, unknown> | null;
}
