import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { SearchDocument } from '../types';
import type { ElasticsearchSearchBackend } from './backend';
import { buildDocuments, type Execute } from './documents';
import { SEARCH_LOCK, syncTriggers } from './outbox';

export interface ReindexOptions {
  /** Records per bulk request. */
  batchSize?: number;
  onStart?(total: number): void;
  onProgress?(done: number): void | Promise<void>;
}

export interface ReindexResult {
  index: string;
  documents: number;
  /** Indexes the alias left (now deleted). */
  previous: string[];
}

const MIN_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Rebuilds a document's index from PostgreSQL with zero downtime: a new index is created and
 * registered as `building` (from then on the outbox indexer writes every change to it too), filled
 * in id order with `create` operations (a newer version already written by the indexer wins), then
 * the alias moves to it atomically and the old index is deleted. Searches read the old index until
 * the swap.
 */
export async function reindex(backend: ElasticsearchSearchBackend, orm: MikroORM, doc: SearchDocument, options: ReindexOptions = {}): Promise<ReindexResult> {
  const batchSize = options.batchSize ?? 1000;
  const execute = backend.execute;
  await syncTriggers(execute, backend.documents);
  const index = await backend.createIndex(doc);
  let swapped = false;
  try {
    await backend.client.indices.putSettings({ index, settings: { refresh_interval: '-1' } });
    await execute(`insert into search_indexes (index_name, document, state) values (?, ?, 'building')`, [index, doc.name]);
    const [{ total }] = await execute(`select count(*)::int as total from ${doc.from}`, []);
    options.onStart?.(total);

    let last = MIN_UUID;
    let done = 0;
    for (;;) {
      const ids: string[] = (
        await execute(`select ${doc.alias}.id from ${doc.from} where ${doc.alias}.id > ?::uuid order by ${doc.alias}.id limit ?`, [last, batchSize])
      ).map((r) => r.id);
      if (!ids.length) break;
      last = ids[ids.length - 1];
      const sources = await buildDocuments(execute, doc, ids);
      await backend.bulk(
        [...sources].flatMap(([id, source]) => [{ create: { _index: index, _id: id } }, source]),
        [409],
      );
      // A record deleted after it was read may have been created above after the indexer's delete:
      // delete what no longer exists.
      const still = new Set(
        (await execute(`select ${doc.alias}.id from ${doc.from} where ${doc.alias}.id = any(array[?]::uuid[])`, [[...sources.keys()]])).map((r) => r.id),
      );
      await backend.bulk([...sources.keys()].filter((id) => !still.has(id)).map((id) => ({ delete: { _index: index, _id: id } })));
      done += ids.length;
      await options.onProgress?.(done);
    }

    // null puts the setting back to its default.
    await backend.client.indices.putSettings({ index, settings: { refresh_interval: null as unknown as string } });
    await backend.client.indices.refresh({ index });
    const previous = await (orm.em as EntityManager).fork().transactional(async (em) => {
      const tx: Execute = (sql, b) => em.execute(sql, b as any[]);
      // No outbox batch is writing while the alias moves and the old indexes leave the list.
      await tx('select pg_advisory_xact_lock(?)', [SEARCH_LOCK]);
      const registered = (await tx('select index_name from search_indexes where document = ? and index_name <> ?', [doc.name, index])).map((r) => r.index_name);
      const fromAlias = await backend.swapAlias(doc, index);
      await tx('delete from search_indexes where document = ? and index_name <> ?', [doc.name, index]);
      await tx(`update search_indexes set state = 'live' where index_name = ?`, [index]);
      return [...new Set([...registered, ...fromAlias])];
    });
    swapped = true;
    if (previous.length) await backend.client.indices.delete({ index: previous, ignore_unavailable: true });
    return { index, documents: done, previous };
  } catch (e) {
    if (swapped) throw e;
    await execute('delete from search_indexes where index_name = ?', [index]).catch(() => undefined);
    await backend.client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
    throw e;
  }
}
