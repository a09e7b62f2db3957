import { actionTable, ALL, can, NONE, READ, type Action, type ResourcePolicy } from '../../access/policy';
import { companyUser, networkUser, retailerUser } from '../../access/audience';
import { forbidden } from '../../errors';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';
import { isBlank } from './lead.rules';

/** PRODUCT.md section 4: every network user creates leads and updates those it sees; admins destroy them. */
export const leadActions = actionTable([...READ, 'create', 'update'], {
  [Role.CompanyAdmin]: ALL,
  [Role.RetailerAdmin]: ALL,
  [Role.PlatformOperator]: NONE,
});

/** SPEC 4.3: a new lead's owner is its creator's company or retailer; a user with neither may not create one. */
export function leadOwner(caller: Caller): { company: string } | { retailer: string } {
  if (companyUser(caller) && caller.companyId) return { company: caller.companyId };
  if (retailerUser(caller) && caller.retailerId) return { retailer: caller.retailerId };
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

/**
 * PRODUCT.md section 3: a lead is visible when its assignee is a CRL the caller sees, when the caller
 * is an admin of the lead's owner, or when the caller created it. Activities use it through their lead.
 */
export function leadScope(caller: Caller): Where {
  if (!can(caller, 'list', leadPolicy)) return { id: [] }; // a role that lists no leads sees none
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
 * The stores a lead may be assigned to by the caller (SPEC 2.1, 4.3 rules 2-3, PRODUCT.md section 4), as
 * a `Where` over a lead document's assignee fields: CRLs it sees and, for a lead a company owns, of that
 * company: a retailer user sees the stores of every company it sells for, yet never routes one company's
 * lead to another.
 */
export function assignableScope(caller: Caller, ownerCompanyId: string | null): Where {
  const scope = crlScope(caller, 'assignee_');
  return ownerCompanyId ? { _and: [scope, { assignee_company_id: ownerCompanyId }] } : scope;
}

/** The only assignee type (SPEC 2.1). */
export const ASSIGNEE_TYPE = 'CompanyRetailerLocation';

/** A store a lead was offered to, by what decides who answers for it. */
export interface OfferStore {
  id: string;
  retailerLocationId: string | null;
  retailerId: string | null;
}

/**
 * The users who answer an offer for a store (docs/lead-loop.md), the same set whose activity answers a
 * first-response timer (docs/response-times.md "Answered"): its location users and sales associates, the
 * store managers of its retailer location, and its retailer's admins (and an API key of any of them).
 */
export function answersForStore(caller: Caller, store: OfferStore): boolean {
  switch (caller.role) {
    case Role.CompanyLocationUser:
    case Role.CompanySalesAssociate:
      return caller.companyRetailerLocationIds.includes(store.id);
    case Role.RetailerStoreManager:
      return store.retailerLocationId !== null && caller.retailerLocationIds.includes(store.retailerLocationId);
    case Role.RetailerAdmin:
      return store.retailerId !== null && caller.retailerId === store.retailerId;
    default:
      return false;
  }
}

/** What a decision about a lead reads: for `assign`, the assignee a write names; for `answerOffer`, the offered store. */
export interface LeadFacts {
  /** The store of the offer to answer. */
  offerStore?: OfferStore;
  assignee?: {
    /** `assignee_type` as sent (undefined or blank: not sent). */
    type?: string | null;
    /** `assignee_id` as sent. */
    id?: string | null;
    /** Whether it is a store of `assignableScope` (unknown until looked up). */
    assignable?: boolean;
  };
}

/** Beside the contract's actions: `assign`, name a lead's assignee in a write; `answerOffer`, accept or decline an offer of it. */
export type LeadAction = Action | 'assign' | 'answerOffer';

/** The territory of a lead its creator makes: a territory manager's own (routing prefers its stores). */
export function creatorTerritory(creator: Caller): string | null {
  return creator.role === Role.CompanyTerritoryManager ? creator.territoryId : null;
}

/**
 * `creatorTerritory` in SQL, for a lead already stored: its creator's territory when a territory manager
 * of the lead's company created it (`user` and `lead` are the aliases of its user and lead rows).
 */
export function creatorTerritorySql(user: string, lead: string): string {
  return `case when ${user}.role = '${Role.CompanyTerritoryManager}' and ${user}.company_id = ${lead}.owner_company_id then ${user}.territory_id end`;
}

/**
 * Who reaches a lead (network users; its activities through their lead), what each role may do with one
 * it sees, and which ones it sees. The platform operator's "no leads" is `leadActions` alone: the scope
 * and the `leadEvents` subscription ask it. An assignee other than a CRL (when an id is sent), or one
 * outside `assignableScope`, is 403.
 */
export const leadPolicy: ResourcePolicy<LeadAction, LeadFacts> = {
  name: 'lead',
  graphql: {
    audience: networkUser,
    Query: ['leads', 'lead', 'leadTimeline', 'leadActivities', 'leadActivity'],
    Mutation: [
      'createLead',
      'createLeads',
      'updateLead',
      'replaceLead',
      'deleteLead',
      'createLeadActivity',
      'updateLeadActivity',
      'replaceLeadActivity',
      'deleteLeadActivity',
      'acceptLead',
      'declineLead',
      'withdrawLeadConsent',
    ],
    types: ['Lead', 'LeadPage', 'LeadAssignee', 'LeadMerge', 'LeadActivity', 'LeadActivityPage', 'LeadOffer', 'LeadConsent'],
  },
  actions: leadActions,
  decide: (caller, action, lead) => {
    if (action === 'answerOffer') return !!lead?.offerStore && answersForStore(caller, lead.offerStore);
    if (action !== 'assign' || !lead?.assignee) return true;
    const { type, id, assignable } = lead.assignee;
    if (!isBlank(type) && type !== ASSIGNEE_TYPE && id !== null) return false;
    return assignable !== false;
  },
  scope: leadScope,
};

/** SPEC 2.2: what a caller may do with a lead's activity is what `ACTIVITY_LEAD_ACTION` says of its lead. */
export const leadActivityPolicy: ResourcePolicy = {
  name: 'lead-activity',
  decide: (caller, action) => can(caller, ACTIVITY_LEAD_ACTION[action], leadPolicy),
};
