import { AsyncLocalStorage } from 'node:async_hooks';

/** The turns the current async call chain holds, so that work inside a turn does not wait for another. */
const held = new AsyncLocalStorage<ReadonlyArray<{ budget: WorkBudget; done: boolean }>>();

/**
 * Units of work a process runs at once, bounded together: what a unit costs (memory, a database
 * transaction's time) grows with the units, so the sum in flight is the budget, not the number of requests.
 * `take(n)` waits its turn in order until `n` units fit and gives the function that hands them back; a
 * take larger than the whole budget takes all of it and runs alone. First come, first served: a large
 * take is never passed over by smaller ones behind it.
 */
export class WorkBudget {
  private used = 0;
  private readonly waiting: Array<{ units: number; go(): void }> = [];

  /** `capacity` 0: no bound. */
  constructor(readonly capacity: number) {}

  async take(units: number): Promise<() => void> {
    if (this.capacity <= 0) return () => undefined;
    const n = Math.min(Math.max(Math.ceil(units), 1), this.capacity);
    if (!this.waiting.length && this.used + n <= this.capacity) this.used += n;
    else await new Promise<void>((go) => this.waiting.push({ units: n, go }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= n;
      this.admit();
    };
  }

  /**
   * `work` in a turn of `units`. Inside a turn of this budget (the caller that sized it took it early, for
   * example before holding a database connection) it runs at once: a nested take never waits on its own turn.
   */
  async run<T>(units: number, work: () => Promise<T>): Promise<T> {
    const outer = held.getStore() ?? [];
    if (outer.some((turn) => turn.budget === this && !turn.done)) return work();
    const release = await this.take(units);
    const turn = { budget: this as WorkBudget, done: false };
    try {
      return await held.run([...outer, turn], work);
    } finally {
      turn.done = true;
      release();
    }
  }

  /** Units in flight and takes waiting (for tests and metrics). */
  usage(): { used: number; waiting: number } {
    return { used: this.used, waiting: this.waiting.length };
  }

  private admit(): void {
    while (this.waiting.length && this.used + this.waiting[0].units <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.units;
      next.go();
    }
  }
}
