import { allow } from 'graphql-shield';
import { actionTable, ALL, READ } from '../../auth/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';

/** The operator and the product's company admin write images; whoever sees the product reads them. */
export const productImageActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

export const productImagePermissions = {
  Query: { productImages: isAuthenticated },
  Mutation: { createProductImage: isAuthenticated, updateProductImage: isAuthenticated, deleteProductImage: isAuthenticated },
  ProductImage: allow,
};
