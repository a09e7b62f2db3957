import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type WritableTable } from '../../auth/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';
import type { CompanyRetailerAttribute } from './company-retailer.input';

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
