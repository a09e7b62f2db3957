import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { logger } from '../../logger';
import { countDemandFlush, countDemandSearch } from '../../observability/locator-demand-counts';
import type { AnsweredSearch, SearchObserver } from '../store-locator/store-locator.types';
import { DemandBuffer, type DemandCount } from './locator-demand.buffer';
import { boxPlace } from './locator-demand.cells';
import { addCounts } from './locator-demand.repository';

/**
 * The store locator's observer: each answered search's first page becomes counts in the buffer (a few
 * map updates); later pages of the same search, and boxes wider than a degree, are not counted.
 */
export function demandObserver(buffer: DemandBuffer): SearchObserver {
  return (search: AnsweredSearch) => {
    if (search.page !== 1) {
      countDemandSearch('skipped');
      return;
    }
    buffer.record({
      companyId: search.companyId,
      at: search.at,
      place: search.geo.kind === 'point' ? search.geo.origin : boxPlace(search.geo.box),
      products: search.products.flatMap((f) => f.values.map((v) => `${f.key}:${v}`)),
      total: search.total,
      nearestMetres: search.nearestMetres,
    });
  };
}

/**
 * Writes the buffer's counts every `flushMs`, in one statement, and once more when stopped (the service's
 * shutdown, src/lifecycle.ts, stops the modules before the database). Each process flushes its own
 * buffer. Counts a flush could not write go back into the buffer for the next one, as far as its bounds
 * allow.
 */
export class DemandFlusher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly orm: MikroORM,
    readonly buffer: DemandBuffer,
    private readonly flushMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
    started.add(this);
  }

  /** Writes what the buffer holds now (after any flush under way). */
  flush(): Promise<void> {
    // `write` never rejects: a failed flush keeps its counts for the next one.
    const next = (this.running ?? Promise.resolve()).then(() => this.write(this.buffer.take()));
    this.running = next;
    void next.then(() => {
      if (this.running === next) this.running = null;
    });
    return next;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    started.delete(this);
    await this.flush();
  }

  private async write(counts: DemandCount[]): Promise<void> {
    if (!counts.length) return;
    try {
      await addCounts(this.orm.em.fork() as EntityManager, counts);
      countDemandFlush('ok');
    } catch (err) {
      countDemandFlush('failed');
      const lost = this.buffer.restore(counts);
      logger.warn({ err, rows: counts.length, lost }, 'locator demand counts were not written; kept for the next flush');
    }
  }
}

/** The flushers started in this process. */
const started = new Set<DemandFlusher>();

/** Flushes every started flusher of this process now (tests, and a shutdown hook that cannot wait for the timer). */
export async function flushLocatorDemand(): Promise<void> {
  await Promise.all([...started].map((f) => f.flush()));
}

/** One buffer and flusher per app (its context dependencies): the locator's routes and the module's start share them. */
const perApp = new WeakMap<object, DemandFlusher>();

export function demandFlusher(app: { orm: MikroORM; config: Config }): DemandFlusher {
  let flusher = perApp.get(app);
  if (!flusher) {
    const { flushMs, maxEntries, maxBytes, farMetres } = app.config.locatorDemand;
    flusher = new DemandFlusher(app.orm, new DemandBuffer({ maxEntries, maxBytes, farMetres }), flushMs);
    perApp.set(app, flusher);
  }
  return flusher;
}
