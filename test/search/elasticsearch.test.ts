// The conformance suite against a live Elasticsearch or OpenSearch (test/support/search-engine.ts says
// which): `SEARCH_CLUSTER=1` starts the project's OpenSearch cluster for the run; `SEARCH_URL` (or
// ELASTICSEARCH_URL) with SEARCH_BACKEND uses one already running. Without either it skips.
import { randomBytes } from 'node:crypto';
import { createTestApp } from '../support/app';
import { engineUnderTest } from '../support/search-engine';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import { searchDocuments } from '../../src/modules';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { searchConformance } from './conformance';

const engine = engineUnderTest();

if (!engine) {
  describe('search conformance: Elasticsearch or OpenSearch', () => {
    test.skip('needs SEARCH_CLUSTER=1, or SEARCH_URL / ELASTICSEARCH_URL', () => undefined);
  });
} else {
  const prefix = `leadnet_test_${randomBytes(4).toString('hex')}_`;
  const es = (backend: unknown) => backend as ElasticsearchSearchBackend;
  searchConformance({
    name: engine.backend === 'opensearch' ? 'OpenSearch' : 'Elasticsearch',
    // The harness drains the outbox itself (settle), so the app runs no indexer of its own.
    createApp: () => createTestApp({ SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' }),
    backend: (t, extra) => createElasticsearchBackend(t.config, t.orm, { documents: [...searchDocuments, ...extra], runIndexer: false }),
    settle: async (_t, backend) => {
      await es(backend).indexer.drain();
      await es(backend).refresh();
    },
    load: async (_t, backend, doc) => {
      await es(backend).ensureIndex(doc);
      await es(backend).indexer.drain();
      await es(backend).refresh([doc]);
    },
    countsStatements: false,
    cleanup: async (t) => {
      await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    },
  });
}
