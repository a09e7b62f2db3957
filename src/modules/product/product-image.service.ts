import { FlushMode } from '@mikro-orm/core';
import type { Context } from '../../context';
import { Validator } from '../../errors';
import { notFoundAsForbidden } from '../../access/visibility';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { authorize } from '../../access/policy';
import { findInScope } from '../../search/list';
import type { SearchDocument } from '../../search/types';
import { Product } from './product.entity';
import { ProductImage } from './product-image.entity';
import type { ProductImageInput } from './product-image.input';
import { productImagePolicy } from './product-image.policy';
import { productSearch } from './product.search';

const imageSearch: SearchDocument = {
  name: 'product_images',
  from: 'product_images i join products p on p.id = i.product_id',
  alias: 'i',
  fields: {
    id: { sql: 'i.id', type: 'uuid' },
    product_id: { sql: 'i.product_id', type: 'uuid' },
    company_id: { sql: 'p.company_id', type: 'uuid' },
    created_at: { sql: 'i.created_at', type: 'date' },
  },
};

const isHttpUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

/** Network management of product images. */
export class ProductImageService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  /** The images of a product the caller sees, by position. */
  async forProduct(productId: string): Promise<ProductImage[]> {
    const product = await findInScope(this.ctx, productSearch, Product, productImagePolicy.scope(this.caller), productId, 'Product');
    return this.ctx.em.find(ProductImage, { product: product.id }, { orderBy: { position: 'asc', createdAt: 'asc', id: 'asc' } });
  }

  get(id: string): Promise<ProductImage> {
    return findInScope(this.ctx, imageSearch, ProductImage, productImagePolicy.scope(this.caller), id, 'ProductImage');
  }

  /** The product must be one the caller may change (its company's for a company admin): anything else is 403. */
  async create(input: ProductImageInput): Promise<ProductImage> {
    authorize(this.caller, 'create', productImagePolicy);
    if (!input.productId) new Validator().add('product_id', 'blank').throwIfAny();
    const product = await findInScope(this.ctx, productSearch, Product, productImagePolicy.scope(this.caller), input.productId!, 'Product')
      .catch(notFoundAsForbidden);
    const image = new ProductImage();
    image.product = product;
    return this.write(image, input, true);
  }

  async update(id: string, input: ProductImageInput): Promise<ProductImage> {
    const image = await this.get(id);
    authorize(this.caller, 'update', productImagePolicy);
    return this.write(image, input, false);
  }

  async delete(id: string): Promise<void> {
    const image = await this.get(id);
    authorize(this.caller, 'destroy', productImagePolicy);
    await transactional(this.ctx.em, async (em) => {
      em.remove(image);
      await flushDestroy(em);
    });
  }

  private write(image: ProductImage, input: ProductImageInput, creating: boolean): Promise<ProductImage> {
    return transactional(this.ctx.em, async (em) => {
      em.setFlushMode(FlushMode.COMMIT);
      const v = new Validator();
      if (!creating && input.productId !== undefined && input.productId !== image.product.id) v.add('product_id', 'invalid', 'cannot change');
      if (creating && input.url === undefined) v.add('url', 'blank');
      const set = new Assign(image, v);
      set.text('url', input.url, 'url', true);
      set.text('thumbnailUrl', input.thumbnailUrl, 'thumbnail_url');
      set.number('position', input.position, 'position', 0, true);
      for (const [field, value] of [['url', input.url], ['thumbnail_url', input.thumbnailUrl]] as const) {
        if (value && value.trim() && !isHttpUrl(value.trim())) v.add(field, 'invalid', 'is not an http(s) URL');
      }
      v.throwIfAny();
      em.persist(image);
      await em.flush();
      return image;
    });
  }
}

