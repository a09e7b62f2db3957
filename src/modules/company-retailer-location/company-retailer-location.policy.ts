import { actionTable, ALL, can, NONE, READ, type Action, type ResourcePolicy, type WritableTable } from '../../access/policy';
import { companyUser, networkUser } from '../../access/audience';
import { Role } from '../user/role';
import type { CrlAttribute } from './company-retailer-location.input';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';

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
  'hourExceptions',
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

/** What a decision about a CRL reads. */
export interface CrlFacts {
  /** The company of the CRL (of its company retailer, for a new one). */
  companyId?: string;
  /** The company a write names (`company_id`), when it names one: it may not differ from the CRL's. */
  namedCompanyId?: string | null;
  /** For `place`: the company retailer a CRL is put under (null: none by that id). */
  companyRetailer?: { id: string; companyId: string } | null;
}

/**
 * Beside the contract's actions: `place`, put a CRL under a company retailer (creating it there, or
 * moving it there); `readNetworkNames`, read the names of territories and store types (a company's own:
 * retailer users do not); `seeEveryStore`, see every CRL under the company retailers it sees (a company
 * admin only: its CRL scope is its company, and a CRL is always of its company retailer's company), so
 * its count of the CRLs under one is the kept count and only it reads fields over all of them.
 */
export type CrlAction = Action | 'place' | 'readNetworkNames' | 'seeEveryStore';

/**
 * Under a company retailer of the caller's company only; a retailer manager under its assigned ones; a
 * territory manager only with a territory (its new CRLs are in it).
 */
function mayPlace(caller: Caller, cr: CrlFacts['companyRetailer']): boolean {
  if (!cr || cr.companyId !== caller.companyId) return false;
  if (caller.role === Role.CompanyRetailerManager) return caller.companyRetailerIds.includes(cr.id);
  if (caller.role === Role.CompanyTerritoryManager) return !!caller.territoryId;
  return true;
}

/** The territory a caller's new CRL is in whatever the input says: a territory manager's own. */
export function territoryOfNewCrl(caller: Caller): string | null {
  return caller.role === Role.CompanyTerritoryManager ? caller.territoryId : null;
}

/** Who reaches a company retailer location (network users), what each role may do and write, and which ones it sees. */
export const crlPolicy: ResourcePolicy<CrlAction, CrlFacts> = {
  name: 'company-retailer-location',
  graphql: {
    audience: networkUser,
    Query: ['companyRetailerLocations', 'companyRetailerLocation'],
    Mutation: ['createCompanyRetailerLocation', 'updateCompanyRetailerLocation', 'deleteCompanyRetailerLocation'],
    types: ['CompanyRetailerLocation', 'CompanyRetailerLocationPage', 'DeliveryArea', 'HourException', 'HourExceptionSpan'],
  },
  actions: crlActions,
  decide: (caller, action, crl) => {
    if (action === 'place') return mayPlace(caller, crl?.companyRetailer);
    if (action === 'readNetworkNames') return companyUser(caller);
    if (action === 'seeEveryStore') return caller.role === Role.CompanyAdmin;
    return crl?.namedCompanyId == null || crl.namedCompanyId === crl.companyId;
  },
  writable: crlWritable,
  scope: (caller) => crlScope(caller),
};

/** A search field only callers who may `readNetworkNames` read. */
export const readsNetworkNames = (caller: Caller): boolean => can(caller, 'readNetworkNames', crlPolicy);

/** Whether the caller sees every CRL under the company retailers it sees (`seeEveryStore`). */
export const seesEveryStore = (caller: Caller): boolean => can(caller, 'seeEveryStore', crlPolicy);
