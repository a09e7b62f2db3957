export { Role, RoleEnum, COMPANY_ROLES, RETAILER_ROLES, isCompanyRole, isRetailerRole } from '../../auth/role';
