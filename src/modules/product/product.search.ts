import { visibleType } from '../../access/visibility';
import { productPolicy } from './product.policy';
import { Product } from './product.entity';
import type { SearchDocument } from '../../search/types';

/** What a product list can search, filter, order and aggregate on. */
export const productSearch: SearchDocument = {
  name: 'products',
  from: 'products p',
  alias: 'p',
  // A generated column holding textExpression(productSearch), trigram-indexed (Migration20261122013000_search).
  textSql: 'p.search_text',
  sources: [{ table: 'products', ids: 'select ($1).id' }],
  fields: {
    id: { sql: 'p.id', type: 'uuid' },
    sku: { sql: 'p.sku', type: 'string', text: true },
    name: { sql: 'p.name', type: 'string', text: true },
    category: { sql: 'p.category', type: 'string', text: true },
    url: { sql: 'p.url', type: 'string' },
    external_id: { sql: 'p.external_id', type: 'string', text: true },
    collection_id: { sql: 'p.collection_id', type: 'uuid' },
    company_id: { sql: 'p.company_id', type: 'uuid' },
    created_at: { sql: 'p.created_at', type: 'date' },
    updated_at: { sql: 'p.updated_at', type: 'date' },
  },
};


/** Who sees a Product wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const productVisible = visibleType('Product', Product, productSearch, productPolicy);
