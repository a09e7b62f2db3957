import { logger } from './logger';

interface Step {
  name: string;
  stop(): Promise<unknown> | unknown;
}

/**
 * The service's one shutdown path. Each part that starts registers how to stop it; `stop()` runs them in
 * reverse order of registration (the HTTP server, registered last, stops first and the embedded
 * database, registered first, stops last), each after the previous one finished, once however often it
 * is called. A failing step is logged and the next ones still run.
 */
export class Lifecycle {
  private readonly steps: Step[] = [];
  private stopping?: Promise<boolean>;

  /** Registers a part to stop on shutdown. */
  add(name: string, stop: () => Promise<unknown> | unknown): void {
    this.steps.push({ name, stop });
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Stops every registered part; resolves true when all of them stopped cleanly. */
  stop(reason: string): Promise<boolean> {
    return (this.stopping ??= (async () => {
      if (this.steps.length === 0) return true;
      logger.info({ reason }, 'shutting down');
      let clean = true;
      for (const step of [...this.steps].reverse()) {
        const started = Date.now();
        try {
          const outcome = await step.stop();
          logger.debug({ step: step.name, ms: Date.now() - started, outcome }, 'stopped');
        } catch (err) {
          clean = false;
          logger.error({ err, step: step.name }, `could not stop ${step.name}`);
        }
      }
      logger.info('stopped');
      return clean;
    })());
  }

  /**
   * SIGTERM and SIGINT stop the service and exit (0 when every part stopped cleanly, else 1). A repeated
   * signal (npm forwards the terminal's Ctrl-C, which the terminal also sends) does not cut the
   * shutdown short; a shutdown still running after `hardLimitMs` exits with 1.
   */
  exitOnSignals(hardLimitMs: number): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.isStopping) {
        logger.info({ signal }, 'already shutting down');
        return;
      }
      setTimeout(() => {
        logger.error(`shutdown did not finish within ${hardLimitMs} ms; exiting`);
        process.exit(1);
      }, hardLimitMs).unref();
      void this.stop(signal).then((clean) => process.exit(clean ? 0 : 1));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
}
