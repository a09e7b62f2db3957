import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ClientConfig } from 'pg';
import { withSessionLock } from '../../db/leader';
import { logger } from '../../logger';
import type { SearchDocument } from '../types';
import type { ElasticsearchIndexes } from './indexes';
import { buildDocuments, existingRecordIds, recordCount, recordIdsAfter, type Source } from './documents.queries';
import { executeIn } from '../../db/sql';
import {
  buildingIndexNames,
  documentIndexRows,
  markLive,
  otherIndexNames,
  registerBuilding,
  unregisterIndex,
  unregisterOthers,
} from './indexes.queries';
import { indexDefinition } from './mapping';
import { SEARCH_REINDEX_LOCK, lockOutbox, syncTriggers } from './outbox.queries';

export interface ReindexOptions {
  /** Records per bulk request (default `REINDEX_BATCH_SIZE`). */
  batchSize?: number;
  /** Bulk requests in flight at once, 1 or 2 (default 2); the next batch is read from PostgreSQL meanwhile. */
  inFlight?: 1 | 2;
  /**
   * How long the new index may take to get its replicas (green) before the alias swap; default
   * `SEARCH_REINDEX_READY_TIMEOUT_MS`. Past it the reindex fails and the old index stays live.
   */
  readyTimeoutMs?: number;
  onStart?(total: number): void;
  onProgress?(done: number): void | Promise<void>;
}

export interface ReindexResult {
  index: string;
  documents: number;
  /** Indexes the alias left (now deleted). */
  previous: string[];
}

/** Records per bulk request of a reindex (`leadnet reindex --batch-size`). */
export const REINDEX_BATCH_SIZE = 2000;
/**
 * Largest `--batch-size` of `leadnet reindex` and `leadnet search verify`: a batch is held in memory
 * whole and sent as one request (a bulk body, an `ids` query), so its size bounds both the process's
 * memory and the request the engine must accept (10,000 lead documents are about 20 MB).
 */
export const MAX_BATCH_SIZE = 10_000;

const MIN_UUID = '00000000-0000-0000-0000-000000000000';

interface Batch {
  ids: string[];
  sources: Map<string, Source>;
}

const noop = () => undefined;

/**
 * Rebuilds a document's index from PostgreSQL with zero downtime: a new index is created with no
 * replica and refreshes off, and registered as `building` (from then on the outbox indexer writes every
 * change to it too); it is filled in id order with `create` operations (a newer version already written
 * by the indexer wins), reading the next batch from PostgreSQL while up to `inFlight` bulk requests are
 * in flight. Then its refreshes and the replicas its definition asks for are restored, and once it is
 * green (every replica assigned) the alias moves to it atomically and the old index is deleted.
 * Searches read the old index until the swap; a failure before it deletes the new index.
 *
 * One reindex of a document runs at a time, across processes (a session advisory lock; another is
 * refused with `ReindexRunning`): two would each delete the other's index at their swap. An index
 * still registered as `building` when the lock is taken was left by a reindex that died before it
 * could clean up (killed, its machine lost); it is cleaned up first (`removeAbandonedBuilds`).
 */
export class ReindexRunning extends Error {
  override name = 'ReindexRunning';
  constructor(document: string) {
    super(`a reindex of ${document} is already running (in this or another process); wait for it to end, then run it again if still needed`);
  }
}

export async function reindex(backend: ElasticsearchIndexes, orm: MikroORM, doc: SearchDocument, options: ReindexOptions = {}): Promise<ReindexResult> {
  const result = await withReindexLock(orm, doc, async () => {
    await removeAbandonedBuilds(backend, orm, doc);
    return rebuild(backend, orm, doc, options);
  });
  if (result === null) throw new ReindexRunning(doc.name);
  return result;
}

function withReindexLock<T>(orm: MikroORM, doc: SearchDocument, work: () => Promise<T>): Promise<T | null> {
  const connection = (orm.em as EntityManager).getConnection().getConnectionOptions() as ClientConfig;
  return withSessionLock(connection, SEARCH_REINDEX_LOCK, doc.name, work);
}

/** The indexes registered as being built for `doc`: none, unless a reindex runs or one died. */
function buildingIndexes(backend: ElasticsearchIndexes, doc: SearchDocument): Promise<string[]> {
  return buildingIndexNames(backend.execute, doc);
}

/**
 * Cleans up after a reindex of `doc` that died; only called with the document's reindex lock held, so no
 * reindex is running. An index it left registered as `building` is dropped (the outbox kept writing every
 * change to it), unless the alias already points at it: then the reindex died between its alias swap and
 * the commit recording it, and the swap stands: it is recorded, and the index the alias left dropped.
 * The rows change under the outbox's lock, as in the swap, so that no batch writes to an index after it is
 * deleted (a bulk write would create it again). Returns the indexes deleted.
 */
async function removeAbandonedBuilds(backend: ElasticsearchIndexes, orm: MikroORM, doc: SearchDocument): Promise<string[]> {
  if (!(await buildingIndexes(backend, doc)).length) return [];
  const aliased = new Set(await backend.aliasedIndexes(doc));
  const dropped = await (orm.em as EntityManager).fork().transactional(async (em) => {
    const tx = executeIn(em);
    await lockOutbox(tx);
    const rows = await documentIndexRows(tx, doc);
    const building = rows.filter((r) => r.state === 'building').map((r) => r.index_name);
    if (!building.length) return [];
    const swapped = building.find((index) => aliased.has(index));
    const drop = swapped ? rows.map((r) => r.index_name).filter((index) => index !== swapped) : building;
    for (const index of drop) await unregisterIndex(tx, index);
    if (swapped) await markLive(tx, swapped);
    logger.warn({ document: doc.name, dropped: drop, ...(swapped ? { live: swapped } : {}) }, 'search: cleaning up after a reindex that did not finish');
    return drop;
  });
  if (dropped.length) await backend.client.indices.delete({ index: dropped, ignore_unavailable: true });
  return dropped;
}

/**
 * Cleans up after a reindex of `doc` that died, when none is running now (the indexer's start). Without a
 * `building` row, the usual case, it costs one statement: no lock connection, no engine call.
 */
export async function removeAbandonedBuildsIfIdle(backend: ElasticsearchIndexes, orm: MikroORM, doc: SearchDocument): Promise<string[]> {
  if (!(await buildingIndexes(backend, doc)).length) return [];
  return (await withReindexLock(orm, doc, () => removeAbandonedBuilds(backend, orm, doc))) ?? [];
}

async function rebuild(backend: ElasticsearchIndexes, orm: MikroORM, doc: SearchDocument, options: ReindexOptions = {}): Promise<ReindexResult> {
  const batchSize = options.batchSize ?? REINDEX_BATCH_SIZE;
  const inFlight = options.inFlight ?? 2;
  const execute = backend.execute;
  await syncTriggers(execute, backend.documents);
  // A replica would index every document a second time while the index fills: it is copied once, at the end.
  const index = await backend.createIndex(doc, { number_of_replicas: 0, refresh_interval: '-1' });
  let swapped = false;
  try {
    await registerBuilding(execute, doc, index);
    const total = await recordCount(execute, doc);
    options.onStart?.(total);

    const read = async (after: string): Promise<Batch | null> => {
      const ids = await recordIdsAfter(execute, doc, after, batchSize);
      return ids.length ? { ids, sources: await buildDocuments(execute, doc, ids) } : null;
    };
    const write = async ({ ids, sources }: Batch): Promise<number> => {
      await backend.bulk([...sources].map(([id, source]) => ({ op: 'create', index, id, source })));
      // A record deleted after it was read, or no longer in the index's records (a store that stopped
      // receiving leads), may have been created above after the indexer's delete: delete those.
      const written = [...sources.keys()];
      const still = doc.customIndex
        ? new Set((await buildDocuments(execute, doc, written)).keys())
        : new Set(await existingRecordIds(execute, doc, written));
      await backend.bulk(written.filter((id) => !still.has(id)).map((id) => ({ op: 'delete', index, id })));
      return ids.length;
    };

    let done = 0;
    const writing: Array<Promise<number>> = [];
    let reading = read(MIN_UUID);
    try {
      for (;;) {
        const batch = await reading;
        if (!batch) break;
        // The next batch is read while this one is written.
        reading = read(batch.ids[batch.ids.length - 1]);
        reading.catch(noop);
        const written = write(batch);
        written.catch(noop);
        writing.push(written);
        if (writing.length >= inFlight) {
          done += await writing.shift()!;
          await options.onProgress?.(done);
        }
      }
      while (writing.length) {
        done += await writing.shift()!;
        await options.onProgress?.(done);
      }
    } catch (e) {
      // No bulk request may still be running when the index is deleted (a `create` would make it again).
      await Promise.allSettled([...writing, reading]);
      throw e;
    }

    // null puts a setting back to its default.
    const replicas = indexDefinition(doc).settings.number_of_replicas ?? null;
    await backend.client.indices.putSettings({ index, settings: { refresh_interval: null as unknown as string } });
    await backend.client.indices.refresh({ index });
    // A commit first: the replicas then copy its segment files rather than replay every operation.
    await backend.client.indices.flush({ index });
    await backend.client.indices.putSettings({ index, settings: { number_of_replicas: replicas as unknown as number } });
    await waitForGreen(backend, index, options.readyTimeoutMs ?? backend.options.reindexReadyTimeoutMs ?? 600_000);

    const previous = await (orm.em as EntityManager).fork().transactional(async (em) => {
      const tx = executeIn(em);
      // No outbox batch is writing while the alias moves and the old indexes leave the list.
      await lockOutbox(tx);
      const registered = await otherIndexNames(tx, doc, index);
      const fromAlias = await backend.swapAlias(doc, index);
      await unregisterOthers(tx, doc, index);
      await markLive(tx, index);
      return [...new Set([...registered, ...fromAlias])];
    });
    swapped = true;
    if (previous.length) await backend.client.indices.delete({ index: previous, ignore_unavailable: true });
    return { index, documents: done, previous };
  } catch (e) {
    if (swapped) throw e;
    await unregisterIndex(execute, index).catch(() => undefined);
    await backend.client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
    throw e;
  }
}

/**
 * Waits until every shard copy of `index` is assigned and started (green), asking the engine to wait in
 * steps shorter than one request's timeout; throws once `timeoutMs` has passed.
 */
async function waitForGreen(backend: ElasticsearchIndexes, index: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const step = Math.max(100, Math.min(5_000, Math.floor((backend.options.requestTimeoutMs ?? 10_000) / 2)));
  let status = 'unknown';
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new Error(
        `reindex: the new index ${index} was not green (its replicas assigned and copied) within ${timeoutMs} ms, last ${status}; ` +
          'it was deleted and the alias still points at the old index (raise SEARCH_REINDEX_READY_TIMEOUT_MS, or check the cluster has nodes for the replicas)',
      );
    }
    try {
      const health = await backend.client.cluster.health({ index, wait_for_status: 'green', timeout: `${Math.min(step, remaining)}ms` });
      status = health.status;
      if (health.status === 'green' && !health.timed_out) return;
    } catch (e) {
      // The engine answers 408 when its wait ran out.
      const err = e as { statusCode?: number; meta?: { statusCode?: number; body?: { status?: string } } };
      if ((err.statusCode ?? err.meta?.statusCode) !== 408) throw e;
      status = err.meta?.body?.status ?? status;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
