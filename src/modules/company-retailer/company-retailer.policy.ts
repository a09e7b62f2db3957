import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type ResourcePolicy, type WritableTable } from '../../access/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';
import type { CompanyRetailerAttribute } from './company-retailer.input';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';
import { CompanyRetailer } from './company-retailer.entity';
import { companyRetailerSearch } from './company-retailer.search';

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

/** Who reaches the company retailer fields; record scope and the tables above are applied in the service. */
export const companyRetailerPermissions = {
  Query: { companyRetailers: isNetworkUser, companyRetailer: isNetworkUser },
  Mutation: {
    createCompanyRetailer: isNetworkUser,
    updateCompanyRetailer: isNetworkUser,
    replaceCompanyRetailer: isNetworkUser,
    deleteCompanyRetailer: isNetworkUser,
  },
  CompanyRetailer: allow,
  CompanyRetailerPage: allow,
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

/** Who reaches a company retailer, what each role may do and write, and which ones it sees. */
export const companyRetailerPolicy: ResourcePolicy = {
  rules: companyRetailerPermissions,
  actions: companyRetailerActions,
  writable: companyRetailerWritable,
  scope: companyRetailerScope,
  visible: { type: 'CompanyRetailer', entity: CompanyRetailer, doc: companyRetailerSearch },
};
