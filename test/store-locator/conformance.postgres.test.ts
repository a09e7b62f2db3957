import { storeLocatorConformance } from './conformance';
import { PostgresStoreLocatorSearch } from '../../src/modules/store-locator/store-locator.postgres';

storeLocatorConformance({
  name: 'PostgreSQL',
  async create(t, execute) {
    return {
      search: new PostgresStoreLocatorSearch(execute, t.config.storeLocator),
      index: async () => undefined,
      close: async () => undefined,
    };
  },
});
