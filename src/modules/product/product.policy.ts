import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ, type ResourcePolicy } from '../../access/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { isCompanyRole, isRetailerRole } from '../user/role';
import { Product } from './product.entity';
import { productSearch } from './product.search';

/** PRODUCT.md section 4: only a company admin writes products. */
export const productActions = actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE });

/** Who reaches the product fields; record scope and `productActions` are applied in ProductService. */
export const productPermissions = {
  Query: { products: isNetworkUser, product: isNetworkUser },
  Mutation: { createProduct: isNetworkUser, updateProduct: isNetworkUser, deleteProduct: isNetworkUser },
  Product: allow,
  ProductPage: allow,
};

/** PRODUCT.md section 3: company users see their company's products, retailer users all of them. */
export function productScope(caller: Caller): Where {
  if (isCompanyRole(caller.role)) return { company_id: caller.companyId };
  if (isRetailerRole(caller.role)) return {};
  return { id: [] };
}

/** Who reaches a product, what each role may do with one it sees, and which ones it sees. */
export const productPolicy: ResourcePolicy = {
  rules: productPermissions,
  actions: productActions,
  scope: productScope,
  visible: { type: 'Product', entity: Product, doc: productSearch },
};
