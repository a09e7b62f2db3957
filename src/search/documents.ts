import { productSearch } from '../modules/product/product.search';
import { leadActivitySearch, leadSearch } from '../modules/lead/lead.search';
import { companyRetailerSearch } from '../modules/company-retailer/company-retailer.search';
import { crlSearch } from '../modules/company-retailer-location/company-retailer-location.search';
import { storeLocatorSearch } from '../modules/store-locator/store-locator.search';
import type { SearchDocument } from './types';

/**
 * Every search document, for the backends that keep a copy of them (Elasticsearch: one index, outbox
 * triggers and `leadnet reindex` per document). A resource adds its `<resource>.search.ts` here.
 */
export const searchDocuments: SearchDocument[] = [leadSearch, leadActivitySearch, companyRetailerSearch, crlSearch, productSearch, storeLocatorSearch];
