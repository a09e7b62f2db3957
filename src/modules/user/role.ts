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

registerEnumType(RoleEnum, { name: 'Role', description: 'A role of PRODUCT.md section 2.' });

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
