import { createHash } from 'node:crypto';
import type { SearchDocument } from '../types';
import type { ElasticsearchSearchBackend } from './backend';
import { buildDocuments, recordIdsAfter, type Source } from './documents.queries';
import { pendingRecordIds } from './outbox.queries';
import { ID_FIELD } from './mapping';

export interface VerifyOptions {
  /** Records read from PostgreSQL, and documents from the index, per request. */
  batchSize?: number;
  /** Rewrite what drifted (missing and stale documents indexed, extra ones deleted), then check again. */
  repair?: boolean;
  /** Ids listed per kind of drift in the report (the counts are always whole). */
  listLimit?: number;
}

export interface DriftReport {
  document: string;
  /** The index behind the alias, the one searches read. */
  index: string;
  /** Documents PostgreSQL says the index should hold, and documents it holds. */
  database: number;
  indexed: number;
  /** In PostgreSQL, not in the index. */
  missing: number;
  /** In the index, not in PostgreSQL (deleted records, or records the document no longer lists). */
  extra: number;
  /** In both, with a different content (hash of the document's source). */
  stale: number;
  /** Records with a change still queued in the search outbox: not counted as drift. */
  pending: number;
  /** Up to `listLimit` ids of each kind. */
  ids: { missing: string[]; extra: string[]; stale: string[] };
  /** With `repair`: the records rewritten. */
  repaired?: number;
  ok: boolean;
}

const MIN_UUID = '00000000-0000-0000-0000-000000000000';

/** The document's content version: a hash of its source with keys in a fixed order. */
export function contentHash(source: Source): string {
  return createHash('sha256').update(canonical(source)).digest('base64url').slice(0, 22);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The keyword field holding the record id: the list indexes' own, or the custom index's `id`. */
const idField = (doc: SearchDocument) => (doc.customIndex ? 'id' : ID_FIELD);

/**
 * Compares a document's live index with PostgreSQL (`leadnet search verify`): every record's document
 * as the indexer would write it now, by id and content hash, against what the index holds. Records with
 * a change still in the outbox are pending, not drift; what looks drifted is checked a second time, so
 * that a write landing during the walk is not reported. Reads PostgreSQL in id order and the index with
 * `search_after`, `batchSize` at a time; holds the ids of one document in memory (about 100 bytes each).
 */
export async function verify(backend: ElasticsearchSearchBackend, doc: SearchDocument, options: VerifyOptions = {}): Promise<DriftReport> {
  const batchSize = options.batchSize ?? 1000;
  const listLimit = options.listLimit ?? 100;
  const [index] = await backend.aliasedIndexes(doc);
  if (!index) throw new Error(`No index behind ${backend.alias(doc)}: run \`leadnet reindex ${doc.name}\``);
  await backend.client.indices.refresh({ index });

  const pendingIds = () => pendingRecordIds(backend.execute, doc);
  const indexed = async (ids: string[]) => {
    const response = await backend.client.search({ index, query: { ids: { values: ids } }, size: ids.length, track_total_hits: false });
    return new Map(response.hits.hits.map((h) => [h._id as string, contentHash(h._source as Source)]));
  };
  /** Of these ids, the drifted ones now: [missing, stale, extra]. */
  const compare = async (ids: string[], expected?: Map<string, Source>) => {
    const sources = expected ?? (await buildDocuments(backend.execute, doc, ids));
    const inIndex = await indexed(ids);
    const missing: string[] = [];
    const stale: string[] = [];
    const extra: string[] = [];
    for (const id of ids) {
      const source = sources.get(id);
      const hash = inIndex.get(id);
      if (source && hash === undefined) missing.push(id);
      else if (source && hash !== contentHash(source)) stale.push(id);
      else if (!source && hash !== undefined) extra.push(id);
    }
    return { missing, stale, extra, sources };
  };

  const pending = await pendingIds();
  const suspects = new Set<string>();
  const expected = new Set<string>();
  // PostgreSQL's records in id order, each batch against the index.
  for (let last = MIN_UUID; ; ) {
    const ids = await recordIdsAfter(backend.execute, doc, last, batchSize);
    if (!ids.length) break;
    last = ids[ids.length - 1];
    const found = await compare(ids);
    for (const id of found.sources.keys()) expected.add(id);
    for (const id of [...found.missing, ...found.stale, ...found.extra]) suspects.add(id);
  }
  // The index's documents in id order: those PostgreSQL does not list are extra.
  let count = 0;
  for (let after: unknown[] | undefined; ; ) {
    const response = await backend.client.search({
      index,
      size: batchSize,
      _source: false,
      sort: [{ [idField(doc)]: 'asc' }],
      ...(after ? { search_after: after as string[] } : {}),
      track_total_hits: false,
    });
    const hits = response.hits.hits;
    if (!hits.length) break;
    count += hits.length;
    for (const h of hits) if (!expected.has(h._id as string)) suspects.add(h._id as string);
    after = hits[hits.length - 1].sort as unknown[];
  }

  // A second look at what seemed drifted, minus what the outbox is about to fix.
  const check = async () => {
    const queued = await pendingIds();
    await backend.client.indices.refresh({ index });
    const ids = [...suspects].filter((id) => !queued.has(id) && !pending.has(id));
    const drift = { missing: [] as string[], stale: [] as string[], extra: [] as string[] };
    for (let i = 0; i < ids.length; i += batchSize) {
      const found = await compare(ids.slice(i, i + batchSize));
      drift.missing.push(...found.missing);
      drift.stale.push(...found.stale);
      drift.extra.push(...found.extra);
    }
    return { drift, queued };
  };
  let { drift, queued } = await check();
  let repaired: number | undefined;
  if (options.repair) {
    const ids = [...drift.missing, ...drift.stale, ...drift.extra];
    for (let i = 0; i < ids.length; i += batchSize) {
      const refused = await backend.index(doc, ids.slice(i, i + batchSize), 'wait_for');
      if (refused.size) throw new Error(`the engine refused ${refused.size} of the documents to repair, first ${[...refused][0].join(': ')}`);
    }
    repaired = ids.length;
    ({ drift, queued } = await check());
  }
  const pendingCount = new Set([...pending, ...queued]).size;
  return {
    document: doc.name,
    index,
    database: expected.size,
    indexed: count,
    missing: drift.missing.length,
    extra: drift.extra.length,
    stale: drift.stale.length,
    pending: pendingCount,
    ids: { missing: drift.missing.slice(0, listLimit), extra: drift.extra.slice(0, listLimit), stale: drift.stale.slice(0, listLimit) },
    ...(repaired !== undefined ? { repaired } : {}),
    ok: drift.missing.length + drift.extra.length + drift.stale.length === 0,
  };
}
