import { allow } from 'graphql-shield';
import { actionTable, ALL, NONE, READ } from '../../auth/policy';
import { isNetworkUser } from '../../graphql/rules';
import { Role } from '../user/role';

/** PRODUCT.md section 4: only a company admin writes products. */
export const productActions = actionTable(READ, { [Role.CompanyAdmin]: ALL, [Role.PlatformOperator]: NONE });

/** Who reaches the product fields; record scope and `productActions` are applied in ProductService. */
export const productPermissions = {
  Query: { products: isNetworkUser, product: isNetworkUser },
  Mutation: { createProduct: isNetworkUser, updateProduct: isNetworkUser, deleteProduct: isNetworkUser },
  Product: allow,
  ProductPage: allow,
};
