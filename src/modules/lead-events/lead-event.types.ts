import { Field, ID, ObjectType } from 'type-graphql';
import type { LeadEventRow } from './lead-event.repository';
import type { LeadEventType } from './lead-events.record';

/** A lead event as a subscriber receives it (PRODUCT.md 11); `lead` and `leadActivity` are read for it. */
@ObjectType({ description: 'Something that happened to a lead the subscriber may see (PRODUCT.md 11).' })
export class LeadEvent {
  @Field(() => ID, { description: 'Unique: receivers de-duplicate by it.' })
  id!: string;

  @Field(() => String, {
    description:
      '`lead.created`, `lead.updated`, `lead.assigned`, `lead.status_changed`, `lead.merged`, `lead_activity.created`, `lead.sla_breached`, ' +
      '`lead.offered`, `lead.accepted`, `lead.declined`, `lead.offer_expired`, `lead.outcome_recorded` or `lead.erased`.',
  })
  type!: LeadEventType;

  @Field(() => Date, { description: 'When it happened (ISO 8601 date-time, UTC).' })
  occurredAt!: Date;

  @Field(() => String, { description: '`Company` or `Retailer`.' })
  ownerType!: string;

  @Field(() => ID, { description: 'The company or retailer that owned the lead when it happened.' })
  ownerId!: string;

  @Field(() => ID, { description: 'The lead it is about.' })
  leadId!: string;

  @Field(() => ID, { nullable: true, description: 'The new activity of a `lead_activity.created` event.' })
  leadActivityId!: string | null;
}

/** Who an event is about: the lead's owner when it happened, whoever receives it (PRODUCT.md 11). */
export interface LeadEventOwner {
  type: 'Company' | 'Retailer';
  id: string;
}

type OwnedRow = Pick<LeadEventRow, 'ownerCompanyId' | 'ownerRetailerId'>;

export function leadEventOwner(row: OwnedRow): LeadEventOwner {
  return row.ownerCompanyId ? { type: 'Company', id: row.ownerCompanyId } : { type: 'Retailer', id: row.ownerRetailerId! };
}

/** A lead event as a GraphQL subscriber receives it. */
export function leadEventOf(row: LeadEventRow): LeadEvent {
  const owner = leadEventOwner(row);
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurredAt,
    ownerType: owner.type,
    ownerId: owner.id,
    leadId: row.leadId,
    leadActivityId: row.leadActivityId,
  };
}

/** A webhook's body: the fields of `leadEventOf` in the REST style, the event's `data` and the lead. */
export function leadEventEnvelope(row: LeadEventRow & { data: Record<string, unknown> | null }, lead: unknown): Record<string, unknown> {
  return {
    id: row.id,
    type: row.type,
    occurred_at: row.occurredAt.toISOString(),
    owner: leadEventOwner(row),
    data: { ...(row.data ?? {}), ...(row.leadActivityId ? { lead_activity_id: row.leadActivityId } : {}) },
    lead,
  };
}
