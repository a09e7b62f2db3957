import type { RestResource } from '../../rest/resource';
import { LIMITS } from '../../limits';
import { invalid, validationDetail } from '../../errors';
import { checkDecline } from './lead-offer.service';
import { leadBatchTurn } from './lead.service';

/** `{reason, note}`: checked (422 on `reason` or `note`), the reason as GraphQL spells it (`too_far` -> `TOO_FAR`). */
function declineVariables(body: Record<string, unknown>): Record<string, unknown> {
  const { reason, note } = checkDecline(body.reason, body.note);
  return { reason: reason.toUpperCase(), note };
}

/** `{purpose}`: a string when sent (else 422 on `purpose`); absent is `contact`. */
function withdrawalVariables(body: Record<string, unknown>): Record<string, unknown> {
  if (body.purpose === undefined || body.purpose === null) return { purpose: 'contact' };
  if (typeof body.purpose !== 'string') throw invalid([validationDetail('purpose', 'inclusion', 'must be one of: contact')]);
  return { purpose: body.purpose };
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
  batch: { operation: 'CreateLeads', root: 'leads', max: LIMITS.maxBatchItems, turn: leadBatchTurn },
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
    // docs/personal-data.md "Consent": withdraws the lead's consents of `purpose`; no mail about the person from then on.
    { name: 'consent_withdrawals', operation: 'WithdrawLeadConsent', summary: "Withdraw a lead's consent", body: 'LeadConsentWithdrawalBody', variables: withdrawalVariables },
  ],
};
