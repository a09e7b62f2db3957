import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { systemActor } from '../audit/audit.service';
import { resumeErasures } from './personal-data.service';

/** The advisory lock key of the erasure worker (one process at a time resumes jobs). */
export const ERASURE_WORKER_LEADER = 7_312_431;
/** How often it looks for interrupted jobs. */
const POLL_MS = 30_000;
/** A running job untouched this long was interrupted (a request runs its steps within seconds). */
const IDLE_SECONDS = 60;

/**
 * Resumes the erasure jobs an interruption left running (a process killed between steps, a step that
 * failed): at start and then every 30 seconds, each job idle for a minute, oldest first. A job that fails
 * again keeps its error and is tried at the next round.
 */
export class ErasureWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: { pollMs?: number; idleSeconds?: number } = {},
  ) {}

  start(): void {
    if (this.timer) return;
    const round = () => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => logger.error({ err }, 'erasure worker round failed'))
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

  /** One round: every interrupted job, resumed. */
  async tick(): Promise<{ finished: number; failed: number }> {
    const r = await resumeErasures(this.orm.em as EntityManager, systemActor('erasure-worker'), 100, this.options.idleSeconds ?? IDLE_SECONDS);
    if (r.finished || r.failed) logger.info(r, 'erasure worker resumed interrupted jobs');
    return r;
  }
}
