import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { executeIn } from '../../db/sql';
import { claim, complete, fail, tryLockOutbox, type OutboxRange, type OutboxRow } from './outbox.queries';
import type { ElasticsearchIndexes, Refused } from './indexes';

export interface IndexerOptions {
  /** Outbox rows per batch. */
  batchSize: number;
  /** Pause between polls when the outbox is empty, in milliseconds. */
  intervalMs: number;
  /** Longest wait before retrying a failed row, in seconds (1, 2, 4... up to this). */
  maxBackoffSeconds: number;
}

export const DEFAULT_INDEXER_OPTIONS: IndexerOptions = { batchSize: 500, intervalMs: 500, maxBackoffSeconds: 300 };

export interface BatchResult {
  /** False when another indexer held the lock: nothing was done. */
  locked: boolean;
  claimed: number;
  indexed: number;
  failed: number;
}

/**
 * Drains the search outbox into Elasticsearch. One batch at a time across every process (an advisory
 * lock), so two indexers never write the same record out of order; each batch reads the records'
 * current state from PostgreSQL, so replaying a change is harmless. A row whose document the engine
 * refused (or whose whole request failed) is retried with exponential backoff, its error kept; the rows
 * stay in the outbox until the engine has them, and the others of the batch are done.
 */
export class OutboxIndexer {
  readonly options: IndexerOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly orm: MikroORM,
    private readonly backend: ElasticsearchIndexes,
    options: Partial<IndexerOptions> = {},
  ) {
    this.options = { ...DEFAULT_INDEXER_OPTIONS, ...options };
  }

  /**
   * One batch in one transaction: lock, claim, index, then delete the done rows or push back the failed.
   * `range`: only these rows (a write waiting for its own, `afterWrite`). The bulk requests ask for no
   * refresh: the lock is held only while the engine applies them, never for a refresh interval (a write
   * that waits to be searchable waits after the batch: `ElasticsearchSearchBackend.afterWrite`).
   */
  async runBatch(options: { range?: OutboxRange } = {}): Promise<BatchResult> {
    return (this.orm.em as EntityManager).fork().transactional(async (em) => {
      const execute = executeIn(em);
      if (!(await tryLockOutbox(execute))) return { locked: false, claimed: 0, indexed: 0, failed: 0 };
      const rows = await claim(execute, this.options.batchSize, options.range);
      const byDocument = new Map<string, OutboxRow[]>();
      for (const row of rows) byDocument.set(row.document, [...(byDocument.get(row.document) ?? []), row]);
      const done: string[] = [];
      let failed = 0;
      // The documents' bulk requests run side by side.
      await Promise.all(
        [...byDocument].map(async ([name, docRows]) => {
          const doc = this.backend.document(name);
          if (!doc) {
            logger.warn({ document: name, rows: docRows.length }, 'search outbox: unknown document, dropping its rows');
            done.push(...docRows.map((r) => r.id));
            return;
          }
          let refused: Refused;
          try {
            refused = await this.backend.index(doc, docRows.map((r) => r.record_id));
            if (refused.size) {
              logger.warn({ document: name, rows: refused.size, first: refused.values().next().value }, 'search outbox: the engine refused documents, will retry them');
            }
          } catch (e) {
            const error = (e as Error).message ?? String(e);
            refused = new Map(docRows.map((r) => [r.record_id, error]));
            logger.warn({ err: e, document: name, rows: docRows.length }, 'search outbox: indexing failed, will retry');
          }
          const retry = new Map<string, string>();
          for (const row of docRows) {
            const error = refused.get(row.record_id);
            if (error === undefined) done.push(row.id);
            else retry.set(row.id, error);
          }
          failed += retry.size;
          await fail(execute, retry, this.options.maxBackoffSeconds);
        }),
      );
      await complete(execute, done);
      return { locked: true, claimed: rows.length, indexed: done.length, failed };
    });
  }

  /** Runs batches until nothing is due (or a batch fails); for tests, the CLI and shutdown. */
  async drain(): Promise<void> {
    for (;;) {
      const r = await this.runBatch();
      if (!r.locked) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (r.claimed === 0 || r.failed > 0) return;
    }
  }

  /** Polls in the background until `stop()`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = null));
    }, ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    let next = this.options.intervalMs;
    try {
      const r = await this.runBatch();
      // A batch that found rows may have left more: go on at once, until a batch finds none.
      if (r.locked && r.claimed > 0 && r.failed === 0) next = 0;
    } catch (e) {
      logger.error({ err: e }, 'search outbox: batch failed');
      next = Math.min(this.options.intervalMs * 10, 10_000);
    }
    this.schedule(next);
  }
}
