import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * How late this process's timers ran during a measured wait: the longest event-loop delay seen since
 * `reset()`. A bound on a wait measured in this process (a server, a pool and a client all in one jest
 * worker) is the configured timeout plus this slack: on a busy machine every timer fires late by about
 * as much, while a wait that does not end at its timeout (one that hangs until Node's defaults, or
 * forever) still fails the bound.
 */
export class SchedulingSlack {
  private histogram: IntervalHistogram | undefined;

  start(): void {
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
  }

  stop(): void {
    this.histogram?.disable();
  }

  /** Starts a measured window (call it when the timed wait starts). */
  reset(): void {
    this.histogram?.reset();
  }

  /** Milliseconds to add to a bound: twice the worst delay of the window (a wait crosses two timers at most). */
  ms(): number {
    return this.histogram && this.histogram.count > 0 ? (2 * this.histogram.max) / 1e6 : 0;
  }
}
