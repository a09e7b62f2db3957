import { allow } from 'graphql-shield';
import { isNetworkUser } from '../../graphql/rules';

/** Who reaches the product fields; record scope and write rights are checked in ProductService. */
export const productPermissions = {
  Query: { products: isNetworkUser, product: isNetworkUser },
  Mutation: { createProduct: isNetworkUser, updateProduct: isNetworkUser, deleteProduct: isNetworkUser },
  Product: allow,
  ProductPage: allow,
};
