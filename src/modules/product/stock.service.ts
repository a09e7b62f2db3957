import { FlushMode } from '@mikro-orm/core';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import { notFoundAsForbidden, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { authorize } from '../../auth/policy';
import { checkReferences } from '../../auth/visibility';
import { findInScope } from '../../search/list';
import type { SearchDocument, Where } from '../../search/types';
import { Role } from '../user/role';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { crlScope, crlScopeFields } from '../company-retailer-location/company-retailer-location.scope';
import { crlSearch } from '../company-retailer-location/company-retailer-location.search';
import { Product } from './product.entity';
import { Stock } from './stock.entity';
import type { StockInput } from './stock.input';
import { stockActions } from './stock.permissions';

const crl = crlScopeFields('crl', 'crl_');
const stockSearch: SearchDocument = {
  name: 'stocks',
  from: `stocks s join company_retailer_locations crl on crl.id = s.company_retailer_location_id ${crl.joins}`,
  alias: 's',
  fields: { ...crl.fields, id: { sql: 's.id', type: 'uuid' }, created_at: { sql: 's.created_at', type: 'date' } },
};

/** Stock follows its store: the CRLs the caller sees (every one for the operator), over `prefix` fields. */
function storeScope(caller: Caller, prefix = ''): Where {
  return caller.role === Role.PlatformOperator ? {} : crlScope(caller, prefix);
}

/** Network management of stock per (CRL, product). */
export class StockService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  async forLocation(crlId: string): Promise<Stock[]> {
    const store = await findInScope(this.ctx, crlSearch, CompanyRetailerLocation, storeScope(this.caller), crlId, 'CompanyRetailerLocation');
    return this.ctx.em.find(Stock, { companyRetailerLocation: store.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  /** Creates or changes the stock record of a store and a product; a store the caller may not change is 403. */
  async set(input: StockInput): Promise<Stock> {
    authorize(stockActions, this.caller, 'create');
    const store = await findInScope(this.ctx, crlSearch, CompanyRetailerLocation, storeScope(this.caller), input.companyRetailerLocationId, 'CompanyRetailerLocation')
      .catch(notFoundAsForbidden);
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const v = new Validator();
        // Products follow their own visibility (the operator, who sees none through productScope, names any).
        const unseen =
          this.caller.role === Role.PlatformOperator
            ? new Set<string>()
            : await checkReferences(this.ctx, [{ field: 'product_id', kind: 'Product', id: input.productId, unseen: 'invalid' }]);
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
    const stock = await findInScope(this.ctx, stockSearch, Stock, storeScope(this.caller, 'crl_'), id, 'Stock');
    authorize(stockActions, this.caller, 'destroy');
    await transactional(this.ctx.em, async (em) => {
      em.remove(stock);
      await flushDestroy(em);
    });
  }
}
