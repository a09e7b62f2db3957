import { allow } from 'graphql-shield';
import { actionTable, ALL, READ } from '../../auth/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';

/** The operator and the company's admin set stock; whoever sees the store reads it. */
export const stockActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

export const stockPermissions = {
  Query: { stocks: isAuthenticated },
  Mutation: { setStock: isAuthenticated, deleteStock: isAuthenticated },
  Stock: allow,
};
