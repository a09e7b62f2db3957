/** PRODUCT.md section 11: the lead events shared by webhooks and GraphQL subscriptions. */
export const LEAD_EVENT_TYPES = ['lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created', 'lead.sla_breached',
  // The lead loop (docs/lead-loop.md): offers and their answers; outcomes.
  'lead.offered', 'lead.accepted', 'lead.declined', 'lead.offer_expired', 'lead.outcome_recorded',
  // Personal data (docs/personal-data.md): the lead's personal fields were erased; ids only.
  'lead.erased'] as const;
export type LeadEventType = (typeof LEAD_EVENT_TYPES)[number];
