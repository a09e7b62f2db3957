import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type WritableTable } from '../../auth/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';
import type { CrlAttribute } from './company-retailer-location.input';

/** PRODUCT.md section 4: who may do what with a CRL it sees. */
export const crlActions = actionTable(READ, {
  [Role.CompanyAdmin]: ALL,
  [Role.CompanyTerritoryManager]: ALL,
  [Role.CompanyRetailerManager]: ALL,
  [Role.CompanyLocationUser]: [...READ, 'update'],
  [Role.RetailerAdmin]: [...READ, 'update'],
  [Role.RetailerStoreManager]: [...READ, 'update'],
  [Role.PlatformOperator]: NONE,
});

const EVERY: readonly CrlAttribute[] = [
  'companyId',
  'companyRetailerId',
  'retailerLocationId',
  'name',
  'sendingLeads',
  'receivingLeads',
  'deliveryRadius',
  'website',
  'recordCalls',
  'maskEmails',
  'placeId',
  'timezone',
  'territoryId',
  'companyStoreTypeId',
  'physicalAddress',
  'generalEmail',
  'generalPhoneNumber',
  'deliveryAreas',
  'retailerLocationHours',
];
const except = (...left: CrlAttribute[]) => EVERY.filter((a) => !left.includes(a));

/** SPEC 2.5's table of writable attributes, exactly. */
export const crlWritable: WritableTable<CrlAttribute> = {
  [Role.CompanyAdmin]: except('receivingLeads'),
  [Role.CompanyTerritoryManager]: except('receivingLeads', 'territoryId'),
  [Role.CompanyRetailerManager]: except('receivingLeads', 'territoryId'),
  [Role.CompanyLocationUser]: ['receivingLeads', 'recordCalls', 'maskEmails'],
  [Role.CompanySalesAssociate]: [],
  [Role.RetailerAdmin]: ['receivingLeads'],
  [Role.RetailerStoreManager]: ['receivingLeads'],
  [Role.PlatformOperator]: [],
};

/** Who reaches the CRL fields; record scope and the tables above are applied in the service. */
export const crlPermissions = {
  Query: { companyRetailerLocations: isNetworkUser, companyRetailerLocation: isNetworkUser },
  Mutation: {
    createCompanyRetailerLocation: isNetworkUser,
    updateCompanyRetailerLocation: isNetworkUser,
    deleteCompanyRetailerLocation: isNetworkUser,
  },
  CompanyRetailerLocation: allow,
  CompanyRetailerLocationPage: allow,
  DeliveryArea: allow,
};
