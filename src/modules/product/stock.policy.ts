import { allow } from 'graphql-shield';
import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';

/** The operator and the company's admin set stock; whoever sees the store reads it. */
export const stockActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

export const stockPermissions = {
  Query: { stocks: isAuthenticated },
  Mutation: { setStock: isAuthenticated, deleteStock: isAuthenticated },
  Stock: allow,
};

/**
 * Who reaches stock levels, what each role may do, and which ones it sees: a level is seen through its
 * store, the CRLs the caller sees (every one for the operator). The scope reads a CRL's fields, which a
 * stock's document names as its store's, so it applies alike to a stock and to its store (StockService).
 */
export const stockPolicy = {
  rules: stockPermissions,
  actions: stockActions,
  scope: (caller: Caller): Where => (caller.role === Role.PlatformOperator ? {} : crlScope(caller)),
} satisfies ResourcePolicy;
