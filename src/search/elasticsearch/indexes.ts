import { randomBytes } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { MikroORM } from '@mikro-orm/postgresql';
import { executeOnPool, type Execute } from '../../db/sql';
import type { SearchDocument } from '../types';
import type { EngineClient } from './client';
import { buildDocuments } from './documents.queries';
import { indexStates } from './indexes.queries';
import { indexDefinition } from './mapping';
import { createIndexOnce } from './unavailable';

/** What the indexes read of the backend's options (`ElasticsearchOptions`). */
export interface ElasticsearchIndexOptions {
  /** Prefix of every alias and index name, e.g. `leadnet_` -> alias `leadnet_products`. */
  prefix: string;
  /** The client's bound on one request (`SEARCH_TIMEOUT_MS`). */
  requestTimeoutMs?: number;
  /**
   * How long a reindex waits for the new index's replicas (green) before the alias swap
   * (`SEARCH_REINDEX_READY_TIMEOUT_MS`, default 10 minutes: at a million leads the copy takes minutes).
   */
  reindexReadyTimeoutMs?: number;
}

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
 * The engine's indexes of the search documents: their aliases, the writes to them and their creation.
 * The backend's searches and lifecycle (src/search/elasticsearch/backend.ts), the outbox indexer and a
 * reindex all work through it.
 */
export class ElasticsearchIndexes {
  constructor(
    readonly client: EngineClient,
    protected readonly orm: MikroORM,
    readonly documents: SearchDocument[],
    readonly options: ElasticsearchIndexOptions,
  ) {}

  /** Statements on the shared pool, outside any transaction. */
  readonly execute: Execute = executeOnPool(this.orm);

  alias(doc: SearchDocument): string {
    return `${this.options.prefix}${doc.name}`;
  }

  document(name: string): SearchDocument | undefined {
    return this.documents.find((d) => d.name === name);
  }

  /** The indexes a change must reach: the live one and any being built by a reindex. */
  private targetStates(doc: SearchDocument): Promise<Array<{ index: string; live: boolean }>> {
    return indexStates(this.execute, doc);
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

  /** The indexes behind the document's alias (none when it has no alias yet). */
  async aliasedIndexes(doc: SearchDocument): Promise<string[]> {
    const alias = this.alias(doc);
    return (await this.client.indices.existsAlias({ name: alias })) ? Object.keys(await this.client.indices.getAlias({ name: alias })) : [];
  }

  /** Points the alias at `index` alone, atomically; returns the indexes it pointed at before. */
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
}
