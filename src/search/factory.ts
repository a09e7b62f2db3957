import { Client } from '@elastic/elasticsearch';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { searchDocuments } from './documents';
import { ElasticsearchSearchBackend, type ElasticsearchOptions } from './elasticsearch/backend';
import { PostgresSearchBackend } from './postgres';
import type { SearchBackend, SearchDocument } from './types';

/** The Elasticsearch backend over `config.elasticsearchUrl` (also for the CLI and the standalone indexer). */
export function createElasticsearchBackend(config: Config, orm: MikroORM, options: Partial<ElasticsearchOptions> & { documents?: SearchDocument[] } = {}): ElasticsearchSearchBackend {
  if (!config.elasticsearchUrl) throw new Error('ELASTICSEARCH_URL is not set');
  const client = new Client({ node: config.elasticsearchUrl });
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
