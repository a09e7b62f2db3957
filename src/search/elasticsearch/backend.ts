import { randomBytes } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { EngineClient } from './client';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { badRequest } from '../../errors';
import { logger } from '../../logger';
import type { SearchBackend, SearchDocument, SearchRequest, SearchResult } from '../types';
import { buildDocuments, type Execute } from './documents';
import { OutboxIndexer, type IndexerOptions } from './indexer';
import { MAX_RESULT_WINDOW, VERSION_META, definitionVersion, indexDefinition } from './mapping';
import { reindex, removeAbandonedBuildsIfIdle } from './reindex';
import { SEARCH_INDEXER_LEADER, SEARCH_LOCK, enqueueAll, rangeSql, syncTriggers } from './outbox';
import type { ClientConfig } from 'pg';
import { LeaderLock, type LeaderOptions } from '../../db/leader';
import { searchBody, searchResult } from './query';
import { PostgresSearchBackend } from '../postgres';
import { createIndexOnce, engineSearch, isEngineUnavailable } from './unavailable';

export interface ElasticsearchOptions {
  /** Prefix of every alias and index name, e.g. `leadnet_` -> alias `leadnet_products`. */
  prefix: string;
  /** Run the outbox indexer in this process (default true). */
  runIndexer?: boolean;
  indexer?: Partial<IndexerOptions>;
  /** How replicas hand the indexer over (src/db/leader.ts). */
  leader?: Partial<LeaderOptions>;
  /**
   * Read-your-writes: an acknowledged write waits up to `waitMs` for its outbox rows to be indexed and
   * searchable, made so by `refresh` (0: it does not wait; the background indexer catches up).
   */
  writes?: { waitMs: number; refresh: 'wait_for' | true };
  /** Between two attempts to create the indexes when the engine was unreachable at start. */
  ensureRetryMs?: number;
  /** The client's bound on one request (`SEARCH_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /**
   * How long a reindex waits for the new index's replicas (green) before the alias swap
   * (`SEARCH_REINDEX_READY_TIMEOUT_MS`, default 10 minutes: at a million leads the copy takes minutes).
   */
  reindexReadyTimeoutMs?: number;
}

/** The id of the document `searchable` deletes to wait for a refresh: no record has it (ids are UUIDs). */
const REFRESH_POINT = 'leadnet-refresh-point';

/** A refresh mode of a bulk request: none (the index's own interval), `wait_for` or a forced one. */
export type Refresh = false | 'wait_for' | true;

export class ElasticsearchError extends Error {}

/** The records a bulk write did not apply, by id, each with the engine's reason. */
export type Refused = Map<string, string>;

/** One operation of a bulk request: a document written (`index`, or `create` if absent) or deleted. */
export interface BulkWrite {
  op: 'index' | 'create' | 'delete';
  index: string;
  id: string;
  source?: object;
}

const refusal = (r: estypes.BulkResponseItem) => [r.status, r.error && `${r.error.type}: ${r.error.reason}`].filter(Boolean).join(' ');

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
  private ensureTimer: NodeJS.Timeout | null = null;

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
      if (!this.warned.has(doc.name)) logger.warn({ document: doc.name }, 'search document not in any module\'s `search`: searched in PostgreSQL');
      this.warned.add(doc.name);
      return this.fallback.search(doc, req);
    }
    const { body, aggs } = searchBody(doc, req);
    const index = this.alias(doc);
    const from = body.from ?? 0;
    if (from + (body.size ?? 0) > MAX_RESULT_WINDOW) {
      // Too deep for a page: answer a page past the end (200, empty, true total) and refuse the rest.
      const counted = await engineSearch(() => this.client.search({ ...body, index, from: 0, size: 0, sort: undefined }));
      const result = searchResult(doc, aggs, counted);
      if (from >= result.total) return { ...result, ids: [] };
      throw badRequest(`opts[page] is too deep: at most ${MAX_RESULT_WINDOW} records can be paged through`);
    }
    const result = searchResult(doc, aggs, await engineSearch(() => this.client.search({ ...body, index })), req.keyset !== undefined);
    if (!req.keyset?.backward) return result;
    return { ...result, ids: result.ids.reverse(), sortValues: result.sortValues?.reverse() };
  }

  /** The indexes a change must reach: the live one and any being built by a reindex. */
  private async targetStates(doc: SearchDocument): Promise<Array<{ index: string; live: boolean }>> {
    const rows = await this.execute('select index_name, state from search_indexes where document = ? order by created_at', [doc.name]);
    return rows.map((r) => ({ index: r.index_name, live: r.state === 'live' }));
  }

  /**
   * Writes these records' current documents to every target index, and returns the records the engine
   * refused (by id, with its reason: a mapping that rejects the document, an item rejected by a busy
   * cluster's write queue), so that only those are retried; the others are applied. A request the engine
   * does not answer as a whole throws. `refresh` applies to the live index only: an index being built by a
   * reindex has refreshes off, and a `wait_for` on it would wait for the reindex to end.
   */
  async index(doc: SearchDocument, ids: string[], refresh: Refresh = false): Promise<Refused> {
    const unique = [...new Set(ids)];
    if (!unique.length) return new Map();
    const [sources, targets] = await Promise.all([buildDocuments(this.execute, doc, unique), this.targetStates(doc)]);
    const writes = (indexes: string[]) =>
      indexes.flatMap((index) =>
        unique.map((id): BulkWrite => {
          const source = sources.get(id);
          return source ? { op: 'index', index, id, source } : { op: 'delete', index, id };
        }),
      );
    const live = targets.filter((t) => t.live).map((t) => t.index);
    const building = targets.filter((t) => !t.live).map((t) => t.index);
    if (refresh && live.length && building.length) {
      const refused = await this.bulkEach(writes(building));
      for (const [id, reason] of await this.bulkEach(writes(live), refresh)) if (!refused.has(id)) refused.set(id, reason);
      return refused;
    }
    return this.bulkEach(writes([...live, ...building]), live.length ? refresh : false);
  }

  /**
   * Read-your-writes (`options.writes`), before a write: the newest outbox row so far. The rows the
   * write queues come after it, so `afterWrite` can index them ahead of an older backlog (another
   * tenant's import, a first fill) that the write must not wait behind.
   */
  async beforeWrite(): Promise<string | null> {
    if (!this.options.writes || this.options.writes.waitMs <= 0) return null;
    const [{ mark }] = await this.execute('select max(id)::text as mark from search_outbox', []);
    return mark;
  }

  /**
   * Read-your-writes (`options.writes`): called after a write committed, before it is acknowledged.
   * Runs outbox batches of the rows queued since `beforeWrite`'s mark and up to now (its own among them,
   * with those of writes committed meanwhile) until none is left due, then makes them searchable
   * (`searchable`); all within `waitMs`. An engine that fails the batch puts the rows back with a backoff
   * (the background indexer retries them), and the write is acknowledged at once: writes never depend on
   * the engine being up. Documents the engine refused are retried later too, and the write still waits
   * for the others to be searchable. Without a mark, every row queued up to now.
   */
  async afterWrite(since: string | null = null): Promise<void> {
    const writes = this.options.writes;
    if (!writes || writes.waitMs <= 0) return;
    const deadline = Date.now() + writes.waitMs;
    const after = since ?? undefined;
    const [{ mark, documents }] = await this.execute(
      `select max(id)::text as mark, array_agg(distinct document) as documents from search_outbox${after ? ' where id > ?::bigint' : ''}`,
      after ? [after] : [],
    );
    if (mark === null) return;
    const range = { after, upTo: mark };
    const within = rangeSql(range);
    const work = async () => {
      for (;;) {
        const batch = await this.indexer.runBatch({ range });
        if (!batch.locked) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        } else if (batch.failed > 0 && batch.indexed === 0) {
          return;
        }
        const [{ due }] = await this.execute(`select exists(select 1 from search_outbox where ${within.sql} and available_at <= now()) as due`, within.bindings);
        if (!due) break;
        if (Date.now() >= deadline) return;
      }
      // Every row of the range is in the engine (whichever batch, of whichever process, indexed it).
      await this.searchable((documents as string[]).flatMap((name) => this.document(name) ?? []), writes.refresh);
    };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([work(), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
    } catch (e) {
      // The write is committed: an engine problem is the indexer's to retry, never the writer's error.
      logger.warn({ err: e }, 'search: a write was acknowledged before it was searchable');
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves once everything the engine has applied to these documents' live indexes is searchable.
   * `true` refreshes them now. `wait_for` deletes a document that never exists (`REFRESH_POINT`) with
   * `refresh=wait_for`: the engine answers once a refresh of the index (its own, every second) covers
   * that delete, and so every operation applied before it; no refresh is forced, and concurrent writes
   * all wait for the same one. A building index (refreshes off) is not behind the alias, so never waited on.
   */
  async searchable(docs: SearchDocument[], mode: 'wait_for' | true): Promise<void> {
    if (!docs.length) return;
    if (mode === true) return this.refresh(docs);
    await this.bulk(docs.map((doc) => ({ op: 'delete', index: this.alias(doc), id: REFRESH_POINT })), 'wait_for');
  }

  /** Bulk write that must succeed whole: any refusal throws (see `bulkEach` for what is no refusal). */
  async bulk(writes: BulkWrite[], refresh: Refresh = false): Promise<void> {
    const refused = await this.bulkEach(writes, refresh);
    if (refused.size) throw new ElasticsearchError(`bulk: ${refused.size} failed, first ${[...refused][0].join(': ')}`);
  }

  /**
   * Sends writes in one bulk request and returns what the engine refused, by document id (the first
   * refusal of an id written to several indexes). Deleting a document that is not there and losing a
   * `create` race to a newer write are no refusals. The answer's items are read by position, and an answer
   * that does not account for every write throws: a write is never taken as done on an answer that does
   * not say so.
   */
  private async bulkEach(writes: BulkWrite[], refresh: Refresh = false): Promise<Refused> {
    const refused: Refused = new Map();
    if (!writes.length) return refused;
    const operations = writes.flatMap(({ op, index, id, source }) =>
      op === 'delete' ? [{ delete: { _index: index, _id: id } }] : [{ [op]: { _index: index, _id: id } }, source],
    );
    const { items } = await this.client.bulk({ operations, refresh });
    if (items?.length !== writes.length) throw new ElasticsearchError(`bulk: ${writes.length} writes sent, ${items?.length ?? 'no'} answered`);
    items.forEach((item, i) => {
      const r = Object.values(item)[0];
      const { op, id } = writes[i];
      const ok = r && !r.error && r.status < 300;
      const harmless = (op === 'delete' && r?.status === 404) || (op === 'create' && r?.status === 409);
      if (!ok && !harmless && !refused.has(id)) refused.set(id, r ? refusal(r) : 'no answer');
    });
    return refused;
  }

  /**
   * Creates a new, empty index with the document's mapping (not yet behind the alias); `settings` override
   * the definition's for the creation (a reindex builds with no replica and no refresh).
   */
  async createIndex(doc: SearchDocument, settings: estypes.IndicesIndexSettings = {}): Promise<string> {
    const index = `${this.alias(doc)}_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const definition = indexDefinition(doc);
    await createIndexOnce(() => this.client.indices.create({ index, ...definition, settings: { ...definition.settings, ...settings } }));
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
  /** The indexes behind the document's alias (none when it has no alias yet). */
  async aliasedIndexes(doc: SearchDocument): Promise<string[]> {
    const alias = this.alias(doc);
    return (await this.client.indices.existsAlias({ name: alias })) ? Object.keys(await this.client.indices.getAlias({ name: alias })) : [];
  }

  async swapAlias(doc: SearchDocument, index: string): Promise<string[]> {
    const alias = this.alias(doc);
    const previous = (await this.aliasedIndexes(doc)).filter((name) => name !== index);
    await this.client.indices.updateAliases({
      actions: [...previous.map((name) => ({ remove: { index: name, alias } })), { add: { index, alias } }],
    });
    return previous;
  }

  async refresh(docs: SearchDocument[] = this.documents): Promise<void> {
    await this.client.indices.refresh({ index: docs.map((d) => this.alias(d)), ignore_unavailable: true, allow_no_indices: true });
  }

  /** Installs the outbox triggers, makes sure every index exists, stands for running the indexer. */
  async start(): Promise<void> {
    await syncTriggers(this.execute, this.documents);
    const ensured = await this.ensureIndexes();
    if (!ensured) this.retryEnsure();
    if (this.options.runIndexer !== false) {
      this.leader.start();
      if (ensured) this.upgrading = this.upgradeOutdated();
    }
  }

  /** The background upgrade of outdated indexes started by `start()` (tests wait for it). */
  upgrading: Promise<string[]> = Promise.resolve([]);

  /** The definition version the live index of a document was created with (null: none recorded, or no index). */
  async liveVersion(doc: SearchDocument): Promise<string | null> {
    const alias = this.alias(doc);
    if (!(await this.client.indices.existsAlias({ name: alias }))) return null;
    const mappings = await this.client.indices.getMapping({ index: alias });
    const [first] = Object.values(mappings);
    return ((first?.mappings?._meta as Record<string, unknown> | undefined)?.[VERSION_META] as string | undefined) ?? null;
  }

  /**
   * A mapping change ships as a new index version: every document whose live index was created with
   * another definition is rebuilt by the zero-downtime reindex (new index, fill, alias swap) while lists
   * keep reading the old one. Run in the background by the process that runs the indexer, which first
   * deletes the indexes of a reindex that died unfinished; returns the documents upgraded. A failure
   * (a reindex of the document already running elsewhere among them) is logged and left for `leadnet reindex`.
   */
  async upgradeOutdated(): Promise<string[]> {
    const upgraded: string[] = [];
    for (const doc of this.documents) {
      if (this.stopped) break;
      try {
        await removeAbandonedBuildsIfIdle(this, this.orm, doc);
        const live = await this.liveVersion(doc);
        const wanted = definitionVersion(doc);
        if (live === wanted) continue;
        logger.info({ document: doc.name, live, wanted }, 'search index definition changed: building a new index version');
        const result = await reindex(this, this.orm, doc);
        logger.info({ document: doc.name, index: result.index, documents: result.documents }, 'search index upgraded');
        upgraded.push(doc.name);
      } catch (e) {
        logger.error({ err: e, document: doc.name }, 'search: upgrading the index failed; run `leadnet reindex`');
      }
    }
    return upgraded;
  }

  /**
   * Every document's index; false when the engine is unreachable (the service starts anyway: lists
   * answer 503 until it is back, writes queue in the outbox).
   */
  private async ensureIndexes(): Promise<boolean> {
    try {
      for (const doc of this.documents) await this.ensureIndex(doc);
      return true;
    } catch (e) {
      if (!isEngineUnavailable(e)) throw e;
      logger.warn({ err: e }, 'search engine unreachable: lists answer 503 until it is back; retrying index creation');
      return false;
    }
  }

  private retryEnsure(): void {
    this.ensureTimer = setTimeout(async () => {
      this.ensureTimer = null;
      const ok = await this.ensureIndexes().catch((e) => {
        logger.error({ err: e }, 'search: creating the indexes failed');
        return false;
      });
      if (!ok && this.ensureTimer === null && !this.stopped) this.retryEnsure();
    }, this.options.ensureRetryMs ?? 5000);
    this.ensureTimer.unref?.();
  }

  private stopped = false;

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ensureTimer) clearTimeout(this.ensureTimer);
    this.ensureTimer = null;
    await this.upgrading.catch(() => undefined);
    await this.leader.stop();
    await this.indexer.stop();
  }
}

