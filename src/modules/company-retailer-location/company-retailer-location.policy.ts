import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type ResourcePolicy, type WritableTable } from '../../access/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';
import type { CrlAttribute } from './company-retailer-location.input';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import { crlSearch } from './company-retailer-location.search';

const NOTHING: unknown[] = [];

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

/**
 * PRODUCT.md section 3: the company retailer locations a caller sees, as a `Where` over a document's
 * CRL fields named `<prefix>id`, `<prefix>company_id`, `<prefix>territory_id`, `<prefix>company_retailer_id`,
 * `<prefix>retailer_id` (the retailer of its retailer location) and `<prefix>retailer_location_id`.
 * The CRL list uses it with no prefix; leads use it on their assignee (`assignee_`); company retailers
 * on array fields of the CRLs under them (`crl_`). `crlScopeFields` gives those fields' SQL.
 */
export function crlScope(caller: Caller, prefix = ''): Where {
  const f = (name: string) => `${prefix}${name}`;
  const company = caller.companyId ?? NOTHING;
  switch (caller.role) {
    case Role.CompanyAdmin:
      return { [f('company_id')]: company };
    case Role.CompanyTerritoryManager:
      return { [f('company_id')]: company, [f('territory_id')]: caller.territoryId ?? NOTHING };
    case Role.CompanyRetailerManager:
      return { [f('company_id')]: company, [f('company_retailer_id')]: caller.companyRetailerIds };
    case Role.CompanyLocationUser:
    case Role.CompanySalesAssociate:
      return { [f('company_id')]: company, [f('id')]: caller.companyRetailerLocationIds };
    case Role.RetailerAdmin:
      return { [f('retailer_id')]: caller.retailerId ?? NOTHING };
    case Role.RetailerStoreManager:
      return { [f('retailer_location_id')]: caller.retailerLocationIds };
    default:
      return { [f('id')]: NOTHING };
  }
}

/** Who reaches a company retailer location, what each role may do and write, and which ones it sees. */
export const crlPolicy: ResourcePolicy = {
  rules: crlPermissions,
  actions: crlActions,
  writable: crlWritable,
  scope: (caller) => crlScope(caller),
  visible: { type: 'CompanyRetailerLocation', entity: CompanyRetailerLocation, doc: crlSearch },
};
