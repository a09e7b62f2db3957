// The conformance suite against a live Elasticsearch: runs only when ELASTICSEARCH_URL is set (no
// Elasticsearch server can run on the machine this was written on, so it has not run there).
import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { createTestApp } from '../support/app';
import { createElasticsearchBackend } from '../../src/search/factory';
import { searchDocuments } from '../../src/search/documents';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { searchConformance } from './conformance';

const url = process.env.ELASTICSEARCH_URL;

if (!url) {
  describe('search conformance: Elasticsearch', () => {
    test.skip('needs ELASTICSEARCH_URL', () => undefined);
  });
} else {
  const prefix = `leadnet_test_${randomBytes(4).toString('hex')}_`;
  const es = (backend: unknown) => backend as ElasticsearchSearchBackend;
  searchConformance({
    name: 'Elasticsearch',
    // The harness drains the outbox itself (settle), so the app runs no indexer of its own.
    createApp: () => createTestApp({ SEARCH_BACKEND: 'elasticsearch', ELASTICSEARCH_URL: url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' }),
    backend: (t, extra) => createElasticsearchBackend(t.config, t.orm, { documents: [...searchDocuments, ...extra], runIndexer: false }),
    settle: async (_t, backend) => {
      await es(backend).indexer.drain();
      await es(backend).refresh();
    },
    load: async (_t, backend, doc) => {
      await es(backend).ensureIndex(doc);
      await es(backend).indexer.drain();
      await es(backend).refresh(doc);
    },
    countsStatements: false,
    cleanup: async () => {
      await new Client({ node: url }).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    },
  });
}
