import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type Action } from '../../auth/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';

/** PRODUCT.md section 4: every network user creates leads and updates those it sees; admins destroy them. */
export const leadActions = actionTable([...READ, 'create', 'update'], {
  [Role.CompanyAdmin]: ALL,
  [Role.RetailerAdmin]: ALL,
  [Role.PlatformOperator]: NONE,
});

/** SPEC 2.2: an activity action is authorized by this action on its lead. */
export const ACTIVITY_LEAD_ACTION: Readonly<Record<Action, Action>> = {
  list: 'list',
  show: 'show',
  create: 'update',
  update: 'update',
  destroy: 'destroy',
};

/** Who reaches the lead fields; record scope and `leadActions` are applied in LeadService / LeadActivityService. */
export const leadPermissions = {
  Query: {
    leads: isNetworkUser,
    lead: isNetworkUser,
    leadTimeline: isNetworkUser,
    leadActivities: isNetworkUser,
    leadActivity: isNetworkUser,
  },
  Mutation: {
    createLead: isNetworkUser,
    updateLead: isNetworkUser,
    replaceLead: isNetworkUser,
    deleteLead: isNetworkUser,
    createLeadActivity: isNetworkUser,
    updateLeadActivity: isNetworkUser,
    replaceLeadActivity: isNetworkUser,
    deleteLeadActivity: isNetworkUser,
  },
  Lead: allow,
  LeadPage: allow,
  LeadAssignee: allow,
  LeadMerge: allow,
  LeadActivity: allow,
  LeadActivityPage: allow,
  Email: allow,
  PhoneNumber: allow,
  Location: allow,
};
