import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { systemActor } from '../audit/audit.service';
import { applyRetentionEverywhere } from './retention.service';

/** The advisory lock key of the retention job (one process at a time applies retention). */
export const RETENTION_WORKER_LEADER = 7_312_432;
/** How often it runs. */
const POLL_MS = 60 * 60 * 1000;

/**
 * Applies every company's retention periods (docs/personal-data.md "Retention"): at start and then every
 * hour, each company's run bounded (`RETENTION_LIMITS`); what a run leaves goes at the next.
 */
export class RetentionWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: { pollMs?: number } = {},
  ) {}

  start(): void {
    if (this.timer) return;
    const round = () => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => logger.error({ err }, 'retention round failed'))
        .finally(() => (this.running = null));
    };
    this.timer = setInterval(round, this.options.pollMs ?? POLL_MS);
    this.timer.unref();
    round();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round over every company. */
  async tick(): Promise<number> {
    const runs = await applyRetentionEverywhere(this.orm.em as EntityManager, systemActor('retention'));
    if (runs.length) logger.info({ runs }, 'retention applied');
    return runs.length;
  }
}
