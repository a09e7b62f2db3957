import { actionTable, ALL, READ, type ResourcePolicy } from '../../access/policy';
import { anyUser, platformOperator } from '../../access/audience';
import { Role } from '../user/role';
import type { Caller } from '../../auth/caller';
import type { Where } from '../../search/types';
import { productScope } from './product.policy';

/** The operator and the product's company admin write images; whoever sees the product reads them. */
export const productImageActions = actionTable(READ, { [Role.PlatformOperator]: ALL, [Role.CompanyAdmin]: ALL });

/**
 * Who reaches product images, what each role may do, and which ones it sees: an image is seen through
 * its product, the products the caller sees (all of them for the operator). The scope reads `id` and
 * `company_id`, so it applies alike to an image's document and to its product's (ProductImageService).
 */
export const productImagePolicy = {
  name: 'product-image',
  graphql: {
    audience: anyUser,
    Query: ['productImages'],
    Mutation: ['createProductImage', 'updateProductImage', 'deleteProductImage'],
    types: ['ProductImage'],
  },
  actions: productImageActions,
  scope: (caller: Caller): Where => (platformOperator(caller) ? {} : productScope(caller)),
} satisfies ResourcePolicy;
