import { allow } from 'graphql-shield';
import { actionTable, ALL, may, NONE, READ, type Action, type ResourcePolicy } from '../../access/policy';
import { isNetworkUser } from '../../graphql/rules';
import { forbidden } from '../../errors';
import { isCompanyRole, isRetailerRole, Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';
import { Lead } from './lead.entity';
import { leadSearch } from './lead.search';

/** PRODUCT.md section 4: every network user creates leads and updates those it sees; admins destroy them. */
export const leadActions = actionTable([...READ, 'create', 'update'], {
  [Role.CompanyAdmin]: ALL,
  [Role.RetailerAdmin]: ALL,
  [Role.PlatformOperator]: NONE,
});

/** SPEC 4.3: a new lead's owner is its creator's company or retailer; a user with neither may not create one. */
export function leadOwner(caller: Caller): { company: string } | { retailer: string } {
  if (isCompanyRole(caller.role) && caller.companyId) return { company: caller.companyId };
  if (isRetailerRole(caller.role) && caller.retailerId) return { retailer: caller.retailerId };
  throw forbidden();
}

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
};

/**
 * PRODUCT.md section 3: a lead is visible when its assignee is a CRL the caller sees, when the caller
 * is an admin of the lead's owner, or when the caller created it. Activities use it through their lead.
 */
export function leadScope(caller: Caller): Where {
  if (!may(leadActions, caller, 'list')) return { id: [] }; // a role that lists no leads sees none
  const mine = { created_by_id: caller.userId };
  // An admin's own leads first, then those assigned to its organisation beyond them: the same set as
  // crlScope's "assignee of ours" or "owned by us", in branches that do not overlap.
  if (caller.role === Role.CompanyAdmin && caller.companyId) {
    return { _or: [{ owner_company_id: caller.companyId }, { assignee_company_beyond_owner_id: caller.companyId }, mine] };
  }
  if (caller.role === Role.RetailerAdmin && caller.retailerId) {
    return { _or: [{ owner_retailer_id: caller.retailerId }, { assignee_retailer_beyond_owner_id: caller.retailerId }, mine] };
  }
  return { _or: [crlScope(caller, 'assignee_'), mine] };
}

/**
 * Who reaches a lead (and its activities, through their lead), what each role may do with one it sees,
 * and which ones it sees. The platform operator's "no leads" is `leadActions` alone: the scope and the
 * `leadEvents` subscription ask it.
 */
export const leadPolicy: ResourcePolicy = {
  rules: leadPermissions,
  actions: leadActions,
  scope: leadScope,
  visible: { type: 'Lead', entity: Lead, doc: leadSearch },
};
