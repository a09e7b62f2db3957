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

registerEnumType(Role, { name: 'Role' });

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
