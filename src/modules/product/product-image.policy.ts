import { allow } from 'graphql-shield';
import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { isAuthenticated } from '../../graphql/rules';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { productScope } from './product.policy';

/** The operator and the product's company admin write images; whoever sees the product reads them. */
export const productImageActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

export const productImagePermissions = {
  Query: { productImages: isAuthenticated },
  Mutation: { createProductImage: isAuthenticated, updateProductImage: isAuthenticated, deleteProductImage: isAuthenticated },
  ProductImage: allow,
};

/**
 * Who reaches product images, what each role may do, and which ones it sees: an image is seen through
 * its product, the products the caller sees (all of them for the operator). The scope reads `id` and
 * `company_id`, so it applies alike to an image's document and to its product's (ProductImageService).
 */
export const productImagePolicy = {
  rules: productImagePermissions,
  actions: productImageActions,
  scope: (caller: Caller): Where => (caller.role === Role.PlatformOperator ? {} : productScope(caller)),
} satisfies ResourcePolicy;
