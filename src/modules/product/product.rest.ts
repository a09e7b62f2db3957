import type { RestResource } from '../../rest/resource';

export const productRest: RestResource = {
  path: '/products',
  root: 'product',
  plural: 'products',
  inputType: 'ProductInput',
  operations: {
    list: 'ListProducts',
    show: 'ShowProduct',
    create: 'CreateProduct',
    update: 'UpdateProduct',
    destroy: 'DeleteProduct',
  },
};
