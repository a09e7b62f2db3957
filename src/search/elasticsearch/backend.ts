import type { EngineClient } from './client';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { badRequest } from '../../errors';
import { logger } from '../../logger';
import type { SearchBackend, SearchDocument, SearchRequest, SearchResult } from '../types';
import { ElasticsearchIndexes, type ElasticsearchIndexOptions } from './indexes';
import { OutboxIndexer, type IndexerOptions } from './indexer';
import { MAX_RESULT_WINDOW, VERSION_META, definitionVersion } from './mapping';
import { reindex, removeAbandonedBuildsIfIdle } from './reindex';
import { SEARCH_INDEXER_LEADER, enqueueAll, lockOutbox, outboxDue, outboxMark, outboxSince, syncTriggers } from './outbox.queries';
import { liveIndexNames, registerLive, unregisterDocument } from './indexes.queries';
import { executeIn } from '../../db/sql';
import type { ClientConfig } from 'pg';
import { LeaderLock, type LeaderOptions } from '../../db/leader';
import { searchBody, searchResult } from './query';
import { PostgresSearchBackend } from '../postgres.queries';
import { engineSearch, isEngineUnavailable } from './unavailable';

export interface ElasticsearchOptions extends ElasticsearchIndexOptions {
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
}

/** The id of the document `searchable` deletes to wait for a refresh: no record has it (ids are UUIDs). */
const REFRESH_POINT = 'leadnet-refresh-point';

/**
 * The Elasticsearch backend: one index per document behind an alias, kept in step by the outbox
 * indexer; searches translate the same `where`, `order`, `aggs` and `q` semantics to the query DSL.
 * The indexes themselves (aliases, writes, creation) are `ElasticsearchIndexes`.
 */
export class ElasticsearchSearchBackend extends ElasticsearchIndexes implements SearchBackend {
  readonly indexer: OutboxIndexer;
  /** Runs the indexer in one process at a time among all sharing the database. */
  readonly leader: LeaderLock;
  /** Documents not in `documents` have no index: PostgreSQL searches them. */
  private readonly fallback: PostgresSearchBackend;
  private readonly warned = new Set<string>();
  private ensureTimer: NodeJS.Timeout | null = null;

  constructor(
    client: EngineClient,
    orm: MikroORM,
    documents: SearchDocument[],
    readonly options: ElasticsearchOptions,
  ) {
    super(client, orm, documents, options);
    this.indexer = new OutboxIndexer(orm, this, options.indexer);
    const connection = (orm.em as EntityManager).getConnection().getConnectionOptions() as ClientConfig;
    this.leader = new LeaderLock(connection, SEARCH_INDEXER_LEADER, this.indexer, 'search-indexer', options.leader);
    this.fallback = new PostgresSearchBackend(() => orm.em as EntityManager);
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

  /**
   * Read-your-writes (`options.writes`), before a write: the newest outbox row so far. The rows the
   * write queues come after it, so `afterWrite` can index them ahead of an older backlog (another
   * tenant's import, a first fill) that the write must not wait behind.
   */
  async beforeWrite(): Promise<string | null> {
    if (!this.options.writes || this.options.writes.waitMs <= 0) return null;
    return outboxMark(this.execute);
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
    const { mark, documents } = await outboxSince(this.execute, after);
    if (mark === null) return;
    const range = { after, upTo: mark };
    const work = async () => {
      for (;;) {
        const batch = await this.indexer.runBatch({ range });
        if (!batch.locked) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        } else if (batch.failed > 0 && batch.indexed === 0) {
          return;
        }
        if (!(await outboxDue(this.execute, range))) break;
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

  /**
   * Makes sure the document has a live index behind its alias. A missing one (first start, or an
   * Elasticsearch that lost it) is created and filled through the outbox.
   */
  async ensureIndex(doc: SearchDocument): Promise<void> {
    await (this.orm.em as EntityManager).fork().transactional(async (em) => {
      const execute = executeIn(em);
      await lockOutbox(execute);
      const live = await liveIndexNames(execute, doc);
      if (live.length && (await this.client.indices.exists({ index: live[0] }))) return;
      const index = await this.createIndex(doc);
      await this.swapAlias(doc, index);
      await unregisterDocument(execute, doc);
      await registerLive(execute, doc, index);
      await enqueueAll(execute, doc);
      logger.info({ document: doc.name, index }, 'created search index; filling it from the outbox');
    });
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

