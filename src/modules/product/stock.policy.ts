import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { anyUser, platformOperator } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { crlScope } from '../company-retailer-location/company-retailer-location.policy';
import { productScope } from './product.policy';

/** The operator and the company's admin set stock; whoever sees the store reads it. */
export const stockActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

/**
 * Who reaches stock levels, what each role may do, and which ones it sees: a level is seen through its
 * store, the CRLs the caller sees (every one for the operator). The scope reads a CRL's fields, which a
 * stock's document names as its store's, so it applies alike to a stock and to its store (StockService).
 */
export const stockPolicy = {
  name: 'stock',
  graphql: { audience: anyUser, Query: ['stocks'], Mutation: ['setStock', 'deleteStock'], types: ['Stock'] },
  actions: stockActions,
  scope: (caller: Caller): Where => (platformOperator(caller) ? {} : crlScope(caller)),
} satisfies ResourcePolicy;

/** The products a stock write may name: those the caller sees, every one for the operator (who sees none through `productScope`). */
export const stockProductScope = (caller: Caller): Where => (platformOperator(caller) ? {} : productScope(caller));
