import { actionTable, ALL, NONE, READ, type Action, type ResourcePolicy } from '../../access/policy';
import { companyUser, networkUser, retailerUser } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';

/** PRODUCT.md section 4: only a company admin writes products. */
export const productActions = actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE });

/** PRODUCT.md section 3: company users see their company's products, retailer users all of them. */
export function productScope(caller: Caller): Where {
  if (companyUser(caller)) return { company_id: caller.companyId };
  if (retailerUser(caller)) return {};
  return { id: [] };
}

/** What a decision about a product reads: the company it is (to be) of, when the write names one. */
export interface ProductFacts {
  companyId?: string | null;
}

/**
 * Who reaches a product (network users), what each role may do with one it sees, and which ones it sees.
 * A company admin writes its own company's products only: naming another company is 403.
 */
export const productPolicy: ResourcePolicy<Action, ProductFacts> = {
  name: 'product',
  graphql: {
    audience: networkUser,
    Query: ['products', 'product'],
    Mutation: ['createProduct', 'updateProduct', 'deleteProduct'],
    types: ['Product', 'ProductPage'],
  },
  actions: productActions,
  decide: (caller, _action, product) => product?.companyId === undefined || product.companyId === caller.companyId,
  scope: productScope,
};
