export { Role, RoleEnum, COMPANY_ROLES, RETAILER_ROLES, isCompanyRole, isRetailerRole, organisationOf } from '../../auth/role';
