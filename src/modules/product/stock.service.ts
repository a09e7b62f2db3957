import { FlushMode } from '@mikro-orm/core';
import type { Context } from '../../context';
import { Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { authorize } from '../../access/policy';
import { checkReferences, notFoundAsForbidden, visibleType } from '../../access/visibility';
import { productSearch } from './product.search';
import { findInScope } from '../../search/list';
import type { SearchDocument } from '../../search/types';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { crlScopeFields } from '../company-retailer-location/company-retailer-location.search';
import { crlSearch } from '../company-retailer-location/company-retailer-location.search';
import { Product } from './product.entity';
import { Stock } from './stock.entity';
import type { StockInput } from './stock.input';
import { stockPolicy, stockProductScope } from './stock.policy';

/** A stock level's document: its store's fields (`crlScopeFields`, as `crlSearch` names them), so the store's scope reads it. */
const crl = crlScopeFields('crl');
const stockSearch: SearchDocument = {
  name: 'stocks',
  from: `stocks s join company_retailer_locations crl on crl.id = s.company_retailer_location_id ${crl.joins}`,
  alias: 's',
  fields: { ...crl.fields, created_at: { sql: 's.created_at', type: 'date' } },
};

/** Network management of stock per (CRL, product). */
/** The products a stock write may name (`stockProductScope`). */
const stockProducts = visibleType('Product', Product, productSearch, { scope: stockProductScope });

export class StockService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  async forLocation(crlId: string): Promise<Stock[]> {
    const store = await findInScope(this.ctx, crlSearch, CompanyRetailerLocation, stockPolicy.scope(this.caller), crlId, 'CompanyRetailerLocation');
    return this.ctx.em.find(Stock, { companyRetailerLocation: store.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** Creates or changes the stock record of a store and a product; a store the caller may not change is 403. */
  async set(input: StockInput): Promise<Stock> {
    authorize(this.caller, 'create', stockPolicy);
    const store = await findInScope(this.ctx, crlSearch, CompanyRetailerLocation, stockPolicy.scope(this.caller), input.companyRetailerLocationId, 'CompanyRetailerLocation')
      .catch(notFoundAsForbidden);
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const v = new Validator();
        // Products follow their own visibility (the operator, who sees none through productScope, names any).
        const unseen = await checkReferences(this.ctx, [{ field: 'product_id', kind: stockProducts, id: input.productId, unseen: 'invalid' }]);
        const product = unseen.size ? null : await em.findOne(Product, { id: input.productId, company: store.company.id });
        if (!product) v.add('product_id', 'invalid', "is not a product of the location's company");
        v.throwIfAny();
        const stock =
          (await em.findOne(Stock, { companyRetailerLocation: store.id, product: product!.id })) ??
          em.create(Stock, { companyRetailerLocation: store, product: product! });
        const set = new Assign(stock, v);
        set.flag('stocked', input.stocked, 'stocked');
        set.flag('available', input.available, 'available');
        v.throwIfAny();
        await em.flush();
        return stock;
      },
      { stocks_company_retailer_location_id_product_id_unique: 'product_id' },
    );
  }

  async delete(id: string): Promise<void> {
    const stock = await findInScope(this.ctx, stockSearch, Stock, stockPolicy.scope(this.caller), id, 'Stock');
    authorize(this.caller, 'destroy', stockPolicy);
    await transactional(this.ctx.em, async (em) => {
      em.remove(stock);
      await flushDestroy(em);
    });
  }
}
