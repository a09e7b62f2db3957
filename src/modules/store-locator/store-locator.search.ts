import type { SearchDocument } from '../../search/types';
import { STORE_LOCATOR_INDEX, storeDocuments } from './store-locator.elasticsearch';

/** The document name: the store locator's alias is `<ELASTICSEARCH_INDEX_PREFIX>store_locator`. */
export const STORE_LOCATOR_DOCUMENT = 'store_locator';

/**
 * The store locator index (one document per listed CRL) as a search document, so the Elasticsearch
 * outbox triggers, indexer and `leadnet reindex store_locator` keep it in step like the list indexes.
 * Its mapping and documents are its own (`customIndex`); it has no list fields. The sources are every
 * table a store document reads; hours, emails, phones and images are read from PostgreSQL when a page
 * is answered (`StoreLocatorReader`), so their changes need no reindexing.
 */
export const storeLocatorSearch: SearchDocument = {
  name: STORE_LOCATOR_DOCUMENT,
  from: 'company_retailer_locations crl',
  alias: 'crl',
  fields: {},
  sources: [
    { table: 'company_retailer_locations', ids: 'select ($1).id' },
    { table: 'retailer_locations', ids: 'select crl.id from company_retailer_locations crl where crl.retailer_location_id = ($1).id' },
    {
      table: 'locations',
      ids: `select crl.id from company_retailer_locations crl where crl.physical_address_id = ($1).id and crl.retailer_location_id is null
            union all
            select crl.id from retailer_locations rl join company_retailer_locations crl on crl.retailer_location_id = rl.id
             where rl.physical_address_id = ($1).id`,
    },
    { table: 'company_store_types', ids: 'select crl.id from company_retailer_locations crl where crl.company_store_type_id = ($1).id' },
    { table: 'stocks', ids: 'select ($1).company_retailer_location_id' },
    { table: 'products', ids: 'select s.company_retailer_location_id from stocks s where s.product_id = ($1).id' },
  ],
  customIndex: {
    definition: () => STORE_LOCATOR_INDEX as unknown as { settings: Record<string, unknown>; mappings: Record<string, unknown> },
    build: storeDocuments,
  },
};
