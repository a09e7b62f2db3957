import type { Client } from '@elastic/elasticsearch';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { searchDocuments } from './documents';
import { ElasticsearchSearchBackend, type ElasticsearchOptions } from './elasticsearch/backend';
import { PostgresSearchBackend } from './postgres';
import type { SearchBackend, SearchDocument } from './types';

/**
 * A client of the Elasticsearch at `node`. The package is loaded here, only when Elasticsearch is
 * configured: loading it costs about 30 MB of memory, which the default PostgreSQL search never needs.
 */
export function elasticsearchClient(node: string): Client {
  const { Client: ElasticsearchClient } = require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');
  return new ElasticsearchClient({ node });
}

/** The Elasticsearch backend over `config.elasticsearchUrl` (also for the CLI and the standalone indexer). */
export function createElasticsearchBackend(config: Config, orm: MikroORM, options: Partial<ElasticsearchOptions> & { documents?: SearchDocument[] } = {}): ElasticsearchSearchBackend {
  if (!config.elasticsearchUrl) throw new Error('ELASTICSEARCH_URL is not set');
  const client = elasticsearchClient(config.elasticsearchUrl);
  return new ElasticsearchSearchBackend(client, orm, options.documents ?? searchDocuments, {
    prefix: config.elasticsearchIndexPrefix,
    runIndexer: config.searchIndexer,
    leader: { retryMs: config.workerLockRetryMs },
    ...options,
  });
}

/** The search backend chosen by `SEARCH_BACKEND`. */
export function createSearchBackend(config: Config, orm: MikroORM): SearchBackend {
  switch (config.searchBackend) {
    case 'postgres':
      return new PostgresSearchBackend(() => orm.em as EntityManager);
    case 'elasticsearch':
      return createElasticsearchBackend(config, orm);
  }
}
