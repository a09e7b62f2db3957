import type { RestResource } from '../../rest/resource';

export const leadActivityRest: RestResource = {
  path: '/lead_activities',
  root: 'lead_activity',
  plural: 'lead_activities',
  inputType: 'LeadActivityInput',
  operations: {
    list: 'ListLeadActivities',
    show: 'ShowLeadActivity',
    create: 'CreateLeadActivity',
    update: 'UpdateLeadActivity',
    replace: 'ReplaceLeadActivity',
    destroy: 'DeleteLeadActivity',
  },
  associations: ['lead'],
};
