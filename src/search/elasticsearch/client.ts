import type { estypes } from '@elastic/elasticsearch';
import type { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { inSpan, SpanKind, tracingOn } from '../../tracing';

/**
 * The calls leadnet makes to a search engine, in the request and response shapes of the Elasticsearch
 * client (`@elastic/elasticsearch`), which implements it as it is. OpenSearch's client takes request
 * bodies under `body` and wraps responses in `{ body }`: `openSearchClient` adapts it.
 */
export interface EngineClient {
  search(request: estypes.SearchRequest): Promise<estypes.SearchResponse>;
  bulk(request: { operations: unknown[]; refresh?: boolean | 'wait_for' }): Promise<estypes.BulkResponse>;
  indices: {
    create(request: estypes.IndicesCreateRequest): Promise<unknown>;
    exists(request: { index: string }): Promise<boolean>;
    getMapping(request: { index: string }): Promise<Record<string, { mappings: estypes.MappingTypeMapping }>>;
    existsAlias(request: { name: string }): Promise<boolean>;
    getAlias(request: { name: string }): Promise<Record<string, unknown>>;
    updateAliases(request: { actions: estypes.IndicesUpdateAliasesAction[] }): Promise<unknown>;
    putSettings(request: { index: string; settings: estypes.IndicesIndexSettings }): Promise<unknown>;
    refresh(request: { index: string | string[]; ignore_unavailable?: boolean; allow_no_indices?: boolean }): Promise<unknown>;
    delete(request: { index: string | string[]; ignore_unavailable?: boolean }): Promise<unknown>;
    /** A Lucene commit of the index's shards: a replica added afterwards copies the segment files instead of replaying every operation. */
    flush(request: { index: string }): Promise<unknown>;
  };
  cluster: {
    /**
     * The health of an index, waiting up to `timeout` (e.g. `5s`) for `wait_for_status`. An engine whose wait
     * ran out answers 408 (`timed_out: true`); the clients throw that as a response error.
     */
    health(request: { index: string; wait_for_status?: 'green' | 'yellow'; timeout?: string }): Promise<{ status: string; timed_out?: boolean }>;
  };
}

const body = async <T>(response: Promise<{ body: unknown }>): Promise<T> => (await response).body as T;

/** `EngineClient` over the OpenSearch client: the same JSON, the body moved under `body` and back out. */
export function openSearchClient(client: OpenSearchClient): EngineClient {
  return {
    search: ({ index, ...request }) => body(client.search({ index: index as string | string[], body: request as never })),
    bulk: ({ operations, refresh }) => body(client.bulk({ body: operations as never, refresh })),
    indices: {
      create: ({ index, ...request }) => body(client.indices.create({ index, body: request as never })),
      exists: (request) => body(client.indices.exists(request)),
      getMapping: (request) => body(client.indices.getMapping(request)),
      existsAlias: (request) => body(client.indices.existsAlias(request)),
      getAlias: (request) => body(client.indices.getAlias(request)),
      updateAliases: (request) => body(client.indices.updateAliases({ body: request as never })),
      putSettings: ({ index, settings }) => body(client.indices.putSettings({ index, body: settings as never })),
      refresh: (request) => body(client.indices.refresh(request)),
      delete: (request) => body(client.indices.delete(request)),
      flush: (request) => body(client.indices.flush(request)),
    },
    cluster: {
      health: (request) => body(client.cluster.health(request)),
    },
  };
}

/**
 * `client` with a span per call when tracing is on, as a child of the request or delivery that makes it
 * (the indexer's own polling makes no traces): the operation (`search`, `bulk`, `indices.refresh`), the
 * engine and the index; never the query or the documents.
 */
export function tracedEngineClient(client: EngineClient, system: 'elasticsearch' | 'opensearch'): EngineClient {
  const wrap = <F extends (request: any) => Promise<any>>(operation: string, call: F): F =>
    ((request: { index?: unknown; name?: unknown }) => {
      if (!tracingOn()) return call(request);
      const index = request?.index ?? request?.name;
      const attributes = { 'db.system.name': system, 'db.operation.name': operation, ...(index !== undefined && { 'db.collection.name': String(index) }) };
      return inSpan(operation, { kind: SpanKind.CLIENT, childOnly: true, attributes }, () => call(request));
    }) as F;
  const indices = client.indices;
  const cluster = client.cluster;
  return {
    search: wrap('search', client.search.bind(client)),
    bulk: wrap('bulk', client.bulk.bind(client)),
    indices: {
      create: wrap('indices.create', indices.create.bind(indices)),
      exists: wrap('indices.exists', indices.exists.bind(indices)),
      getMapping: wrap('indices.getMapping', indices.getMapping.bind(indices)),
      existsAlias: wrap('indices.existsAlias', indices.existsAlias.bind(indices)),
      getAlias: wrap('indices.getAlias', indices.getAlias.bind(indices)),
      updateAliases: wrap('indices.updateAliases', indices.updateAliases.bind(indices)),
      putSettings: wrap('indices.putSettings', indices.putSettings.bind(indices)),
      refresh: wrap('indices.refresh', indices.refresh.bind(indices)),
      delete: wrap('indices.delete', indices.delete.bind(indices)),
      flush: wrap('indices.flush', indices.flush.bind(indices)),
    },
    cluster: { health: wrap('cluster.health', cluster.health.bind(cluster)) },
  };
}
