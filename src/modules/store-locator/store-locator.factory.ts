import { Client } from '@elastic/elasticsearch';
import type { Config } from '../../config';
import { ElasticsearchStoreLocatorSearch, esClient, StoreLocatorIndexer } from './store-locator.elasticsearch';
import { PostgresStoreLocatorSearch } from './store-locator.postgres';
import type { Execute, StoreLocatorSearch } from './store-locator.types';

/** The store locator backend chosen by `SEARCH_BACKEND`, like `src/search/factory.ts`. */
export function createStoreLocatorSearch(config: Config, execute: Execute): StoreLocatorSearch {
  const { scaleMeters, offsetMeters, decay, index } = config.storeLocator;
  switch (config.searchBackend) {
    case 'postgres':
      return new PostgresStoreLocatorSearch(execute, { scaleMeters, offsetMeters, decay });
    case 'elasticsearch':
      return new ElasticsearchStoreLocatorSearch(esClient(new Client({ node: config.elasticsearchUrl! })), execute, { scaleMeters, offsetMeters, decay }, index);
  }
}

/** The Elasticsearch indexer of the store locator, when that backend is configured. */
export function createStoreLocatorIndexer(config: Config, execute: Execute): StoreLocatorIndexer | null {
  if (config.searchBackend !== 'elasticsearch') return null;
  return new StoreLocatorIndexer(esClient(new Client({ node: config.elasticsearchUrl! })), execute, config.storeLocator.index);
}
