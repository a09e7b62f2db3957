import type { RestResource } from '../../rest/resource';
import { LIMITS } from '../../limits';
import { checkDecline } from './lead-offer.service';

/** `{reason, note}`: checked (422 on `reason` or `note`), the reason as GraphQL spells it (`too_far` -> `TOO_FAR`). */
function declineVariables(body: Record<string, unknown>): Record<string, unknown> {
  const { reason, note } = checkDecline(body.reason, body.note);
  return { reason: reason.toUpperCase(), note };
}

export const leadRest: RestResource = {
  path: '/leads',
  root: 'lead',
  plural: 'leads',
  inputType: 'LeadInput',
  operations: {
    list: 'ListLeads',
    show: 'ShowLead',
    create: 'CreateLead',
    update: 'UpdateLead',
    replace: 'ReplaceLead',
    destroy: 'DeleteLead',
  },
  associations: ['phone_numbers', 'emails', 'location', 'assignee', 'lead_activities'],
  batch: { operation: 'CreateLeads', root: 'leads', max: LIMITS.maxBatchItems },
  actions: [
    // docs/lead-loop.md: the offered store's answer; 409 when its offer is not open.
    { name: 'accept', operation: 'AcceptLead', summary: 'Accept a lead offered to your store', errors: [409], responses: { 409: 'OfferConflict' } },
    {
      name: 'decline',
      operation: 'DeclineLead',
      summary: 'Decline a lead offered to your store',
      body: 'LeadDeclineBody',
      errors: [409],
      responses: { 409: 'OfferConflict' },
      variables: declineVariables,
    },
    {
      name: 'outcome',
      operation: 'RecordLeadOutcome',
      summary: "Record a lead's outcome",
      inputType: 'LeadOutcomeInput',
      body: 'LeadOutcomeBody',
      // The contract spells results `won` / `lost`; GraphQL's enum is `WON` / `LOST`.
      mapBody: (body) => (typeof body.result === 'string' ? { ...body, result: body.result.toUpperCase() } : body),
    },
  ],
};
