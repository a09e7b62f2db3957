import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { HEAP_LIMIT_BYTES, cacheStats, type CacheStats } from '../memory';
import { withTimeout } from '../timeout';
import { connectionPool, outboxBacklog } from './metrics.queries';
import { MAIL_OUTCOMES, mailCounts } from './mail-counts';
import { DEMAND_FLUSH_OUTCOMES, DEMAND_SEARCH_OUTCOMES, demandFlushCounts, demandSearchCounts } from './locator-demand-counts';

/** A transactional outbox whose backlog is exported (the search outbox today; webhooks would add theirs). */
export interface OutboxSource {
  name: string;
  table: string;
}

export const OUTBOXES: OutboxSource[] = [{ name: 'search', table: 'search_outbox' }];

/** A scrape must answer even when the database does not. */
const SCRAPE_QUERY_TIMEOUT_MS = 500;

/**
 * The process's Prometheus metrics on its own registry (prom-client): default process metrics (memory,
 * CPU, event-loop delay, GC), HTTP request durations by method, route pattern and status, the database
 * pool's connections, each outbox's backlog and oldest row age (read at scrape time), and each
 * process-wide cache's bytes, budget, entries, hits and misses (src/memory.ts).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(orm: MikroORM, outboxes: OutboxSource[] = OUTBOXES) {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const pool = () => connectionPool(orm);
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database pool connections by state (used, free, pending_acquire, pending_create) and its max',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const p = pool();
        if (!p) return;
        this.set({ state: 'used' }, p.numUsed());
        this.set({ state: 'free' }, p.numFree());
        this.set({ state: 'pending_acquire' }, p.numPendingAcquires());
        this.set({ state: 'pending_create' }, p.numPendingCreates());
        this.set({ state: 'max' }, p.max);
      },
    });
    const backlog = () => withTimeout(outboxBacklog(orm, outboxes), SCRAPE_QUERY_TIMEOUT_MS);
    // One query per scrape feeds both gauges (their collects start together); null when the database
    // does not answer, which leaves the gauges empty rather than stale.
    let latest: Promise<Array<{ name: string; rows: number; age: number }> | null> | null = null;
    const read = () => (latest ??= backlog().catch(() => null).finally(() => setTimeout(() => (latest = null), 0)));
    new Gauge({
      name: 'outbox_backlog_rows',
      help: 'Rows waiting in each transactional outbox',
      labelNames: ['outbox'],
      registers: [this.registry],
      async collect() {
        const rows = await read();
        if (!rows) this.reset();
        for (const r of rows ?? []) this.set({ outbox: r.name }, r.rows);
      },
    });
    new Gauge({
      name: 'outbox_oldest_age_seconds',
      help: 'Age of the oldest row waiting in each outbox (0 when empty)',
      labelNames: ['outbox'],
      registers: [this.registry],
      async collect() {
        const rows = await read();
        if (!rows) this.reset();
        for (const r of rows ?? []) this.set({ outbox: r.name }, r.age);
      },
    });
    this.cacheMetrics();
    this.mailMetrics();
    this.demandMetrics();
  }

  /** Store locator searches kept for locator demand, and its buffer's flushes (src/observability/locator-demand-counts.ts). */
  private demandMetrics(): void {
    const counter = <T extends string>(name: string, help: string, outcomes: readonly T[], read: () => ReadonlyMap<T, number>) => {
      const reported = new Map<T, number>();
      new Counter({
        name,
        help,
        labelNames: ['outcome'],
        registers: [this.registry],
        collect() {
          for (const outcome of outcomes) {
            const value = read().get(outcome) ?? 0;
            this.inc({ outcome }, Math.max(0, value - (reported.get(outcome) ?? 0)));
            reported.set(outcome, value);
          }
        },
      });
    };
    counter(
      'leadnet_locator_demand_searches_total',
      'Store locator searches for locator demand, by outcome: recorded (counted in the buffer), dropped (the buffer was full), skipped (a later page or a box too wide)',
      DEMAND_SEARCH_OUTCOMES,
      demandSearchCounts,
    );
    counter('leadnet_locator_demand_flushes_total', "Locator demand buffer flushes, by outcome: ok, failed (the counts kept for the next one)", DEMAND_FLUSH_OUTCOMES, demandFlushCounts);
  }

  /** Notification mails by outcome (src/observability/mail-counts.ts): SMTP failures are counted, not only logged. */
  private mailMetrics(): void {
    const reported = new Map<string, number>();
    new Counter({
      name: 'leadnet_notification_mails_total',
      help: 'Notification mails this process tried, by outcome: sent, retried, failed (given up), bounced (refused for good by the SMTP server), skipped',
      labelNames: ['outcome'],
      registers: [this.registry],
      collect() {
        for (const outcome of MAIL_OUTCOMES) {
          const value = mailCounts().get(outcome) ?? 0;
          const before = reported.get(outcome) ?? 0;
          this.inc({ outcome }, Math.max(0, value - before));
          reported.set(outcome, value);
        }
      },
    });
  }

  /** One gauge or counter per number of `CacheStats`, labelled by cache. */
  private cacheMetrics(): void {
    const gauge = (name: string, help: string, read: (c: CacheStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['cache'],
        registers: [this.registry],
        collect() {
          for (const c of cacheStats()) this.set({ cache: c.name }, read(c));
        },
      });
    new Gauge({
      name: 'leadnet_heap_limit_bytes',
      help: "The heap's size limit (LEADNET_HEAP_MB and V8's young generation): what the cache budgets are shares of",
      registers: [this.registry],
      collect() {
        this.set(HEAP_LIMIT_BYTES);
      },
    });
    gauge('leadnet_cache_bytes', 'Estimated bytes each process-wide cache holds', (c) => c.bytes);
    gauge('leadnet_cache_budget_bytes', "Each process-wide cache's memory budget (its share of the heap limit)", (c) => c.budget);
    gauge('leadnet_cache_entries', 'Entries each process-wide cache holds', (c) => c.entries);
    const counter = (name: string, help: string, read: (c: CacheStats) => number) => {
      const reported = new Map<string, number>();
      return new Counter({
        name,
        help,
        labelNames: ['cache'],
        registers: [this.registry],
        collect() {
          for (const c of cacheStats()) {
            const value = read(c);
            const before = reported.get(c.name) ?? 0;
            // A cache of the same name made anew (an app rebuilt in one process) starts again from 0.
            if (value >= before) this.inc({ cache: c.name }, value - before);
            reported.set(c.name, value);
          }
        },
      });
    };
    counter('leadnet_cache_hits_total', 'Lookups each process-wide cache answered', (c) => c.hits);
    counter('leadnet_cache_misses_total', 'Lookups each process-wide cache did not answer', (c) => c.misses);
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** GET /metrics in the Prometheus text format; with a token configured, only for `Bearer <token>`. */
  handler(token: string | undefined) {
    return async (req: Request, res: Response): Promise<void> => {
      if (token && !bearerMatches(req.header('authorization'), token)) {
        res.status(401).json({ error: 'Unauthorized' });
        return;
      }
      res.set('Content-Type', this.registry.contentType).send(await this.registry.metrics());
    };
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

