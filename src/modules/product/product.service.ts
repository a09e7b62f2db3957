import type { Context } from '../../context';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { ListArgs, Page } from '../../graphql/common';
import { Validator } from '../../errors';
import { transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { findInScope, listPageRows } from '../../search/list';
import { Company } from '../company/company.entity';
import { Collection } from '../collection/collection.entity';
import { about, authorize } from '../../access/policy';
import { checkReferences } from '../../access/visibility';
import { collectionVisible } from '../collection/collection.search';
import { Product } from './product.entity';
import type { ProductInput } from './product.input';
import { productSearch } from './product.search';
import { productRows } from './product.reader';
import { productPolicy, productScope } from './product.policy';

const UNIQUE = { products_company_id_sku_unique: 'sku' };

/** Products: visible per PRODUCT.md section 3, written by company admins only (section 4). */
export class ProductService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  /**
   * A page of products as plain rows read with the search (product.reader.ts), not managed entities;
   * `stamps`: whether the operation asks for their `createdAt` or `updatedAt`.
   */
  list(args: ListArgs, stamps = true): Promise<Page<Product>> {
    return listPageRows(this.ctx, productSearch, productScope(this.caller), args, productRows(stamps));
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<Product>> {
    return listConnection(this.ctx, productSearch, Product, productScope(this.caller), filter, paging);
  }

  get(id: string): Promise<Product> {
    return findInScope(this.ctx, productSearch, Product, productScope(this.caller), id, 'Product');
  }

  async create(input: ProductInput): Promise<Product> {
    const companyId = input.companyId ?? this.caller.companyId;
    authorize(this.caller, 'create', about(productPolicy, { companyId }));
    return transactional(
      this.ctx.em,
      async (em) => {
        const product = em.create(Product, { company: em.getReference(Company, companyId!), sku: '', name: '' });
        await this.assign(product, input, true);
        await em.flush();
        return product;
      },
      UNIQUE,
    );
  }

  async update(id: string, input: ProductInput): Promise<Product> {
    const product = await this.get(id);
    authorize(this.caller, 'update', about(productPolicy, { companyId: input.companyId }));
    return transactional(
      this.ctx.em,
      async (em) => {
        await this.assign(product, input, false);
        await em.flush();
        return product;
      },
      UNIQUE,
    );
  }

  async delete(id: string): Promise<void> {
    const product = await this.get(id);
    authorize(this.caller, 'destroy', productPolicy);
    await transactional(this.ctx.em, async (em) => em.remove(product).flush());
  }

  /** Validates the whole input first and only then changes the product, so a 422 leaves it untouched. */
  private async assign(product: Product, input: ProductInput, creating: boolean): Promise<void> {
    const v = new Validator();
    const draft: Partial<Product> = {};
    const set = new Assign(draft, v);
    set.text('sku', creating ? (input.sku ?? null) : input.sku, 'sku', true);
    set.text('name', creating ? (input.name ?? null) : input.name, 'name', true);
    set.text('category', input.category, 'category');
    set.text('url', input.url, 'url');
    set.text('externalId', input.externalId, 'external_id');
    if (input.collectionId === null) draft.collection = null;
    else if (input.collectionId !== undefined) {
      const unseen = await checkReferences(this.ctx, [{ field: 'collection_id', kind: collectionVisible, id: input.collectionId, unseen: 'invalid' }]);
      const collection = unseen.size ? null : await this.ctx.em.findOne(Collection, { id: input.collectionId, company: product.company.id });
      if (collection) draft.collection = collection;
      else v.add('collection_id', 'invalid', 'is not a collection of the company');
    }
    v.throwIfAny();
    Object.assign(product, draft);
  }
}
