import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { storeLocatorConformance } from './conformance';
import {
  ElasticsearchStoreLocatorSearch,
  esClient,
  StoreLocatorIndexer,
} from '../../src/modules/store-locator/store-locator.elasticsearch';

// Runs only where an Elasticsearch is reachable (ELASTICSEARCH_URL); the request bodies are unit-tested
// in elasticsearch.test.ts either way.
const url = process.env.ELASTICSEARCH_URL;

if (url) {
  storeLocatorConformance({
    name: 'Elasticsearch',
    async create(t, execute) {
      const client = esClient(new Client({ node: url }));
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
  test.skip('store locator conformance: Elasticsearch (set ELASTICSEARCH_URL to run)', () => undefined);
}
