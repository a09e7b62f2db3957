import { allow } from 'graphql-shield';
import { actionTable, ALL, READ } from '../../auth/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';

/** Companies are managed by the platform operator; everyone else reads the ones it sees. */
export const companyActions = actionTable(READ, { [Role.PlatformOperator]: ALL });

export const companyPermissions = {
  Query: { companies: isAuthenticated, company: isAuthenticated },
  Mutation: { createCompany: isAuthenticated, updateCompany: isAuthenticated, deleteCompany: isAuthenticated },
  Company: allow,
  CompanyPage: allow,
};
