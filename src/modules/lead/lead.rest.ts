import type { RestResource } from '../../rest/resource';
import { LIMITS } from '../../limits';

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
};
