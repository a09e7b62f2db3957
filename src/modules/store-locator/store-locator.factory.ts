import type { Config } from '../../config';
import { searchEngineClient } from '../../search/factory';
import { ElasticsearchStoreLocatorSearch, esClient } from './store-locator.elasticsearch';
import { PostgresStoreLocatorSearch } from './store-locator.postgres';
import { STORE_LOCATOR_DOCUMENT } from './store-locator.search';
import type { Execute, StoreLocatorSearch } from './store-locator.types';

/** The store locator backend chosen by `SEARCH_BACKEND`, like `src/search/factory.ts`. */
export function createStoreLocatorSearch(config: Config, execute: Execute): StoreLocatorSearch {
  const { scaleMeters, offsetMeters, decay } = config.storeLocator;
  switch (config.searchBackend) {
    case 'postgres':
      return new PostgresStoreLocatorSearch(execute, { scaleMeters, offsetMeters, decay }, config.storeLocator.heldCompanies, config.storeLocator.heldBytes);
    case 'elasticsearch':
    case 'opensearch':
      // The alias the search outbox keeps in step (`store-locator.search.ts`), like every list index.
      return new ElasticsearchStoreLocatorSearch(
        esClient(searchEngineClient(config)),
        execute,
        { scaleMeters, offsetMeters, decay },
        `${config.elasticsearchIndexPrefix}${STORE_LOCATOR_DOCUMENT}`,
      );
  }
}
