import { randomBytes } from 'node:crypto';
import { storeLocatorConformance } from './conformance';
import {
  ElasticsearchStoreLocatorSearch,
  esClient,
  StoreLocatorIndexer,
} from '../../src/modules/store-locator/store-locator.elasticsearch';
import { parseConfig } from '../../src/config';
import { searchEngineClient } from '../../src/search/factory';
import { engineUnderTest } from '../support/search-engine';

// Runs only where an Elasticsearch or OpenSearch is reachable (test/support/search-engine.ts: SEARCH_CLUSTER=1,
// or SEARCH_URL / ELASTICSEARCH_URL); the request bodies are unit-tested in elasticsearch.test.ts either way.
const engine = engineUnderTest();

if (engine) {
  storeLocatorConformance({
    name: engine.backend === 'opensearch' ? 'OpenSearch' : 'Elasticsearch',
    async create(t, execute) {
      const client = esClient(searchEngineClient(parseConfig({ SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url })));
      const index = `leadnet_store_locator_test_${randomBytes(4).toString('hex')}`;
      const indexer = new StoreLocatorIndexer(client, execute, index);
      await indexer.ensureIndex();
      return {
        search: new ElasticsearchStoreLocatorSearch(client, execute, t.config.storeLocator, index),
        async index(companyIds) {
          for (const id of companyIds) await indexer.reindexCompany(id);
          await client.indices.refresh({ index });
        },
        close: async () => {
          await client.indices.delete({ index, ignore_unavailable: true });
        },
      };
    },
  });
} else {
  test.skip('store locator conformance: Elasticsearch or OpenSearch (set SEARCH_CLUSTER=1 or SEARCH_URL to run)', () => undefined);
}
