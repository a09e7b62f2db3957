import { actionTable, ALL, NONE, READ, type Action, type ResourcePolicy, type WritableTable } from '../../access/policy';
import { networkUser } from '../../access/audience';
import { Role } from '../user/role';
import type { CompanyRetailerAttribute } from './company-retailer.input';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';

/** PRODUCT.md section 4: who may do what with a company retailer it sees. */
export const companyRetailerActions = actionTable(READ, {
  [Role.CompanyAdmin]: ALL,
  [Role.CompanyTerritoryManager]: [...READ, 'update'],
  [Role.CompanyRetailerManager]: [...READ, 'update'],
  [Role.RetailerAdmin]: [...READ, 'update'],
  [Role.PlatformOperator]: NONE,
});

const MANAGER: readonly CompanyRetailerAttribute[] = ['name', 'sendingLeads', 'receivingLeads', 'physicalAddress'];

/** PRODUCT.md section 4: the attributes each role may write. */
export const companyRetailerWritable: WritableTable<CompanyRetailerAttribute> = {
  [Role.CompanyAdmin]: ['retailerId', 'companyId', 'name', 'territoryId', 'sendingLeads', 'receivingLeads', 'physicalAddress'],
  [Role.CompanyTerritoryManager]: MANAGER,
  [Role.CompanyRetailerManager]: MANAGER,
  [Role.CompanyLocationUser]: [],
  [Role.CompanySalesAssociate]: [],
  [Role.RetailerAdmin]: ['name', 'receivingLeads', 'physicalAddress'],
  [Role.RetailerStoreManager]: [],
  [Role.PlatformOperator]: [],
};

/**
 * PRODUCT.md section 3: its company's admin, its retailer's admin, anyone who sees a CRL under it, and a
 * retailer manager for the company retailers assigned to it.
 */
export function companyRetailerScope(caller: Caller): Where {
  switch (caller.role) {
    case Role.CompanyAdmin:
      return { company_id: caller.companyId ?? [] };
    case Role.RetailerAdmin:
      return { retailer_id: caller.retailerId ?? [] };
    case Role.CompanyRetailerManager:
      return { _or: [crlScope(caller, 'crl_'), { company_id: caller.companyId ?? [], id: caller.companyRetailerIds }] };
    default:
      return crlScope(caller, 'crl_');
  }
}

/** What a decision about a company retailer reads. */
export interface CompanyRetailerFacts {
  /** Its company (for a new one: the one the write names, else the caller's). */
  companyId: string | null;
  /** The company an update names (`company_id`), when it names one: it may not differ from its own. */
  namedCompanyId?: string | null;
}

/**
 * Who reaches a company retailer (network users), what each role may do and write, and which ones it
 * sees. A company admin joins its own company only; no update moves one to another company (403).
 */
export const companyRetailerPolicy: ResourcePolicy<Action, CompanyRetailerFacts> = {
  name: 'company-retailer',
  graphql: {
    audience: networkUser,
    Query: ['companyRetailers', 'companyRetailer'],
    Mutation: ['createCompanyRetailer', 'updateCompanyRetailer', 'replaceCompanyRetailer', 'deleteCompanyRetailer'],
    types: ['CompanyRetailer', 'CompanyRetailerPage'],
  },
  actions: companyRetailerActions,
  decide: (caller, action, cr) => {
    if (!cr) return true;
    if (action === 'create') return !!cr.companyId && cr.companyId === caller.companyId;
    return cr.namedCompanyId == null || cr.namedCompanyId === cr.companyId;
  },
  writable: companyRetailerWritable,
  scope: companyRetailerScope,
};
