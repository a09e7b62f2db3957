import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { deleteDaysBefore } from './locator-demand.repository';

/** Held for as long as a process is the one deleting old locator demand days (src/db/leader.ts). */
export const LOCATOR_DEMAND_RETENTION_LEADER = 7_312_071;
const ROUND_MS = 60 * 60 * 1000;
const BATCH = 10_000;

/**
 * Deletes the locator demand days older than `retentionDays` (docs/locator-demand.md), once when it
 * starts leading and then hourly, in batches: one process at a time (leader lock).
 */
export class DemandRetentionWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly orm: MikroORM,
    private readonly retentionDays: number,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.timer) return;
    const round = () => {
      if (this.running) return;
      this.running = this.purge()
        .catch((err) => logger.error({ err }, 'locator demand retention round failed'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(round, ROUND_MS);
    this.timer.unref();
    round();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Deletes every day before the first kept one; how many rows went. */
  async purge(): Promise<number> {
    const before = new Date(this.clock().getTime() - this.retentionDays * 86_400_000).toISOString().slice(0, 10);
    let total = 0;
    for (;;) {
      const n = await deleteDaysBefore(this.orm.em.fork() as EntityManager, before, BATCH);
      total += n;
      if (n < BATCH || !this.timer) return total;
    }
  }
}
