import { Field, ID, ObjectType } from 'type-graphql';
import type { LeadEventRow } from './lead-events.hub';
import type { LeadEventType } from './lead-events.record';

/** A lead event as a subscriber receives it (PRODUCT.md 11); `lead` and `leadActivity` are read for it. */
@ObjectType({ description: 'Something that happened to a lead the subscriber may see (PRODUCT.md 11).' })
export class LeadEvent {
  @Field(() => ID, { description: 'Unique: receivers de-duplicate by it.' })
  id!: string;

  @Field(() => String, {
    description: '`lead.created`, `lead.updated`, `lead.assigned`, `lead.status_changed`, `lead.merged` or `lead_activity.created`.',
  })
  type!: LeadEventType;

  @Field(() => Date)
  occurredAt!: Date;

  @Field(() => String, { description: '`Company` or `Retailer`.' })
  ownerType!: string;

  @Field(() => ID)
  ownerId!: string;

  @Field(() => ID)
  leadId!: string;

  @Field(() => ID, { nullable: true, description: 'The new activity of a `lead_activity.created` event.' })
  leadActivityId!: string | null;
}

export function leadEventOf(row: LeadEventRow): LeadEvent {
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurredAt,
    ownerType: row.ownerCompanyId ? 'Company' : 'Retailer',
    ownerId: (row.ownerCompanyId ?? row.ownerRetailerId)!,
    leadId: row.leadId,
    leadActivityId: row.leadActivityId,
  };
}
