import { registerEnumType } from 'type-graphql';

/** The roles of PRODUCT.md section 2; the string values are the identifiers used by the CLI and GraphQL. */
export enum Role {
  CompanyAdmin = 'company_admin',
  CompanyTerritoryManager = 'company_territory_manager',
  CompanyRetailerManager = 'company_retailer_manager',
  CompanyLocationUser = 'company_location_user',
  CompanySalesAssociate = 'company_sales_associate',
  RetailerAdmin = 'retailer_admin',
  RetailerStoreManager = 'retailer_store_manager',
  PlatformOperator = 'platform_operator',
}

/**
 * The GraphQL `Role` enum. Its value names are the identifiers themselves (`company_admin`, not
 * `CompanyAdmin`), so GraphQL and the CLI spell roles alike; use it in `@Field(() => RoleEnum)`.
 */
export const RoleEnum = Object.fromEntries(Object.values(Role).map((r) => [r, r])) as { [R in Role]: R };

registerEnumType(RoleEnum, {
  name: 'Role',
  description: 'A role of PRODUCT.md section 2. Existing names, written as the CLI writes them (new enums use SCREAMING_SNAKE_CASE).',
  valuesConfig: {
    company_admin: { description: 'Everything of its company.' },
    company_territory_manager: { description: "Its company's stores in one territory (`territoryId`)." },
    company_retailer_manager: { description: 'The stores under its assigned company retailers (`companyRetailerIds`).' },
    company_location_user: { description: 'Its assigned company retailer locations (`companyRetailerLocationIds`).' },
    company_sales_associate: { description: 'Its assigned company retailer locations, read and lead work only.' },
    retailer_admin: { description: 'Everything of its retailer: its stores and their leads.' },
    retailer_store_manager: { description: 'Its assigned retailer locations (`retailerLocationIds`).' },
    platform_operator: { description: 'Manages the network (companies, retailers, users) through GraphQL and the CLI; reads no leads and no `/v1` resources.' },
  },
});

export const COMPANY_ROLES: readonly Role[] = [
  Role.CompanyAdmin,
  Role.CompanyTerritoryManager,
  Role.CompanyRetailerManager,
  Role.CompanyLocationUser,
  Role.CompanySalesAssociate,
];
export const RETAILER_ROLES: readonly Role[] = [Role.RetailerAdmin, Role.RetailerStoreManager];

export const isCompanyRole = (role: Role): boolean => COMPANY_ROLES.includes(role);
export const isRetailerRole = (role: Role): boolean => RETAILER_ROLES.includes(role);

/** The organisation a user of `role` belongs to: a company, a retailer, or neither (the platform operator). */
export function organisationOf(role: Role): 'company' | 'retailer' | null {
  if (isCompanyRole(role)) return 'company';
  if (isRetailerRole(role)) return 'retailer';
  return null;
}
