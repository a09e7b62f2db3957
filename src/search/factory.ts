import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { ElasticsearchSearchBackend, type ElasticsearchOptions } from './elasticsearch/backend';
import { openSearchClient, tracedEngineClient, type EngineClient } from './elasticsearch/client';
import { AnswerBudget } from '../answer-budget';
import { boundedElasticConnection, boundedOpenSearchConnection } from './elasticsearch/bounded';
import { PostgresSearchBackend } from './postgres.queries';
import type { SearchBackend, SearchDocument } from './types';

/**
 * A client of the search engine at `config.searchUrl`: `@elastic/elasticsearch` for Elasticsearch (it
 * refuses to talk to OpenSearch), `@opensearch-project/opensearch` for OpenSearch. A package is loaded
 * here, only when its engine is configured: each costs tens of MB of memory, which the default
 * PostgreSQL search never needs. Either reads each answer within twice `SEARCH_TIMEOUT_MS`, and the answers
 * being read at once hold at most `SEARCH_MAX_RESPONSE_MB` together (src/search/elasticsearch/bounded.ts):
 * an engine that sends more, or stalls, counts as one that gave no answer.
 */
export function searchEngineClient(config: Config): EngineClient {
  if (!config.searchUrl) throw new Error('SEARCH_URL is not set');
  const options = { node: config.searchUrl, requestTimeout: config.searchTimeouts.requestMs, maxRetries: config.searchTimeouts.maxRetries };
  const budget = new AnswerBudget(config.searchMaxResponseBytes, 'the engine');
  if (config.searchBackend === 'opensearch') {
    const { Client, Connection } = require('@opensearch-project/opensearch') as typeof import('@opensearch-project/opensearch');
    return tracedEngineClient(openSearchClient(new Client({ ...options, Connection: boundedOpenSearchConnection(Connection, budget) })), 'opensearch');
  }
  const { Client, UndiciConnection } = require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');
  const client = new Client({
    ...options,
    Connection: boundedElasticConnection(UndiciConnection, budget),
    maxResponseSize: config.searchMaxResponseBytes,
    maxCompressedResponseSize: config.searchMaxResponseBytes,
  });
  return tracedEngineClient(client, 'elasticsearch');
}

/** The search engine backend over `config.searchUrl` (also for the CLI and the standalone indexer). */
export function createElasticsearchBackend(
  config: Config,
  orm: MikroORM,
  options: Partial<ElasticsearchOptions> & { documents: readonly SearchDocument[] },
): ElasticsearchSearchBackend {
  return new ElasticsearchSearchBackend(searchEngineClient(config), orm, [...options.documents], {
    prefix: config.elasticsearchIndexPrefix,
    runIndexer: config.searchIndexer,
    leader: { retryMs: config.workerLockRetryMs },
    writes: config.searchWrites,
    requestTimeoutMs: config.searchTimeouts.requestMs,
    reindexReadyTimeoutMs: config.searchTimeouts.reindexReadyMs,
    ...options,
  });
}

/**
 * The search backend chosen by `SEARCH_BACKEND`; `documents` are the modules' search documents, of which
 * a search engine keeps a copy (PostgreSQL searches the tables themselves).
 */
export function createSearchBackend(config: Config, orm: MikroORM, documents: readonly SearchDocument[] = []): SearchBackend {
  switch (config.searchBackend) {
    case 'postgres':
      return new PostgresSearchBackend(() => orm.em as EntityManager);
    case 'elasticsearch':
    case 'opensearch':
      return createElasticsearchBackend(config, orm, { documents });
  }
}
