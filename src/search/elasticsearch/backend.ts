import { randomBytes } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { EngineClient } from './client';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { badRequest } from '../../errors';
import { logger } from '../../logger';
import type { SearchBackend, SearchDocument, SearchRequest, SearchResult } from '../types';
import { buildDocuments, type Execute } from './documents';
import { OutboxIndexer, type IndexerOptions } from './indexer';
import { MAX_RESULT_WINDOW, indexDefinition } from './mapping';
import { SEARCH_INDEXER_LEADER, SEARCH_LOCK, enqueueAll, syncTriggers } from './outbox';
import type { ClientConfig } from 'pg';
import { LeaderLock, type LeaderOptions } from '../../db/leader';
import { searchBody, searchResult } from './query';
import { PostgresSearchBackend } from '../postgres';

export interface ElasticsearchOptions {
  /** Prefix of every alias and index name, e.g. `leadnet_` -> alias `leadnet_products`. */
  prefix: string;
  /** Run the outbox indexer in this process (default true). */
  runIndexer?: boolean;
  indexer?: Partial<IndexerOptions>;
  /** How replicas hand the indexer over (src/db/leader.ts). */
  leader?: Partial<LeaderOptions>;
}

export class ElasticsearchError extends Error {}

/**
 * The Elasticsearch backend: one index per document behind an alias, kept in step by the outbox
 * indexer; searches translate the same `where`, `order`, `aggs` and `q` semantics to the query DSL.
 */
export class ElasticsearchSearchBackend implements SearchBackend {
  readonly indexer: OutboxIndexer;
  /** Runs the indexer in one process at a time among all sharing the database. */
  readonly leader: LeaderLock;
  /** Documents not in `documents` have no index: PostgreSQL searches them. */
  private readonly fallback: PostgresSearchBackend;
  private readonly warned = new Set<string>();

  constructor(
    readonly client: EngineClient,
    private readonly orm: MikroORM,
    readonly documents: SearchDocument[],
    readonly options: ElasticsearchOptions,
  ) {
    this.indexer = new OutboxIndexer(orm, this, options.indexer);
    const connection = (orm.em as EntityManager).getConnection().getConnectionOptions() as ClientConfig;
    this.leader = new LeaderLock(connection, SEARCH_INDEXER_LEADER, this.indexer, 'search-indexer', options.leader);
    this.fallback = new PostgresSearchBackend(() => orm.em as EntityManager);
  }

  /** Statements on the shared pool, outside any transaction. */
  readonly execute: Execute = (sql, bindings) => (this.orm.em as EntityManager).getConnection().execute(sql, bindings as any[]);

  alias(doc: SearchDocument): string {
    return `${this.options.prefix}${doc.name}`;
  }

  document(name: string): SearchDocument | undefined {
    return this.documents.find((d) => d.name === name);
  }

  async search(doc: SearchDocument, req: SearchRequest): Promise<SearchResult> {
    if (!this.document(doc.name)) {
      if (!this.warned.has(doc.name)) logger.warn({ document: doc.name }, 'search document not in src/search/documents.ts: searched in PostgreSQL');
      this.warned.add(doc.name);
      return this.fallback.search(doc, req);
    }
    const { body, aggs } = searchBody(doc, req);
    const index = this.alias(doc);
    const from = body.from ?? 0;
    if (from + (body.size ?? 0) > MAX_RESULT_WINDOW) {
      // Too deep for a page: answer a page past the end (200, empty, true total) and refuse the rest.
      const counted = await this.client.search({ ...body, index, from: 0, size: 0, sort: undefined });
      const result = searchResult(doc, aggs, counted);
      if (from >= result.total) return { ...result, ids: [] };
      throw badRequest(`opts[page] is too deep: at most ${MAX_RESULT_WINDOW} records can be paged through`);
    }
    const result = searchResult(doc, aggs, await this.client.search({ ...body, index }), req.keyset !== undefined);
    if (!req.keyset?.backward) return result;
    return { ...result, ids: result.ids.reverse(), sortValues: result.sortValues?.reverse() };
  }

  /** The indexes a change must reach: the live one and any being built by a reindex. */
  async targets(doc: SearchDocument): Promise<string[]> {
    const rows = await this.execute('select index_name from search_indexes where document = ? order by created_at', [doc.name]);
    return rows.map((r) => r.index_name);
  }

  async index(doc: SearchDocument, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const [sources, targets] = await Promise.all([buildDocuments(this.execute, doc, unique), this.targets(doc)]);
    const operations: unknown[] = [];
    for (const index of targets) {
      for (const id of unique) {
        const source = sources.get(id);
        if (source) operations.push({ index: { _index: index, _id: id } }, source);
        else operations.push({ delete: { _index: index, _id: id } });
      }
    }
    await this.bulk(operations);
  }

  async remove(doc: SearchDocument, ids: string[]): Promise<void> {
    const targets = await this.targets(doc);
    await this.bulk(targets.flatMap((index) => [...new Set(ids)].map((id) => ({ delete: { _index: index, _id: id } }))));
  }

  /** Bulk write; a missing document on delete and a lost `create` race are fine, anything else throws. */
  async bulk(operations: unknown[], allowed: number[] = [404]): Promise<estypes.BulkResponse | null> {
    if (!operations.length) return null;
    const response = await this.client.bulk({ operations, refresh: false });
    if (response.errors) {
      const failures = response.items
        .map((item) => Object.values(item)[0]!)
        .filter((r) => r.error && !allowed.includes(r.status));
      if (failures.length) {
        const first = failures[0];
        throw new ElasticsearchError(`bulk: ${failures.length} failed, first ${first.status} ${first.error?.type}: ${first.error?.reason}`);
      }
    }
    return response;
  }

  /** Creates a new, empty index with the document's mapping (not yet behind the alias). */
  async createIndex(doc: SearchDocument): Promise<string> {
    const index = `${this.alias(doc)}_${Date.now()}_${randomBytes(3).toString('hex')}`;
    await this.client.indices.create({ index, ...indexDefinition(doc) });
    return index;
  }

  /**
   * Makes sure the document has a live index behind its alias. A missing one (first start, or an
   * Elasticsearch that lost it) is created and filled through the outbox.
   */
  async ensureIndex(doc: SearchDocument): Promise<void> {
    await (this.orm.em as EntityManager).fork().transactional(async (em) => {
      const execute: Execute = (sql, b) => em.execute(sql, b as any[]);
      await execute('select pg_advisory_xact_lock(?)', [SEARCH_LOCK]);
      const live = await execute(`select index_name from search_indexes where document = ? and state = 'live'`, [doc.name]);
      if (live.length && (await this.client.indices.exists({ index: live[0].index_name }))) return;
      const index = await this.createIndex(doc);
      await this.swapAlias(doc, index);
      await execute('delete from search_indexes where document = ?', [doc.name]);
      await execute(`insert into search_indexes (index_name, document, state) values (?, ?, 'live')`, [index, doc.name]);
      await enqueueAll(execute, doc);
      logger.info({ document: doc.name, index }, 'created search index; filling it from the outbox');
    });
  }

  /** Points the alias at `index` alone, atomically; returns the indexes it pointed at before. */
  async swapAlias(doc: SearchDocument, index: string): Promise<string[]> {
    const alias = this.alias(doc);
    const previous = (await this.client.indices.existsAlias({ name: alias }))
      ? Object.keys(await this.client.indices.getAlias({ name: alias })).filter((name) => name !== index)
      : [];
    await this.client.indices.updateAliases({
      actions: [...previous.map((name) => ({ remove: { index: name, alias } })), { add: { index, alias } }],
    });
    return previous;
  }

  async refresh(doc?: SearchDocument): Promise<void> {
    const docs = doc ? [doc] : this.documents;
    await this.client.indices.refresh({ index: docs.map((d) => this.alias(d)), ignore_unavailable: true, allow_no_indices: true });
  }

  /** Installs the outbox triggers, makes sure every index exists, stands for running the indexer. */
  async start(): Promise<void> {
    await syncTriggers(this.execute, this.documents);
    for (const doc of this.documents) await this.ensureIndex(doc);
    if (this.options.runIndexer !== false) this.leader.start();
  }

  async stop(): Promise<void> {
    await this.leader.stop();
    await this.indexer.stop();
  }
}

