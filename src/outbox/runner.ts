import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { withXactLock, type Worker } from '../db/leader';
import { logger } from '../logger';
import { contextOf, inSpan, ROOT_CONTEXT, SpanKind, SpanStatusCode, tracingOn } from '../tracing';

/** What the runner needs of a claimed delivery row. */
export interface OutboxItem {
  id: string;
  /** The lane (tenant, endpoint) it is delivered in: a lane's slow peer or burst only delays that lane. */
  lane: string;
  /** Attempts recorded before this one. */
  attempts: number;
  /** When it was queued: it is given up `retryHours` later. */
  created_at: Date | string;
  /** The trace of the request that queued it, if it was traced: the attempt's span joins it (docs/tracing.md). */
  traceparent?: string | null;
}

/** How one attempt ended, as the queue judges it. */
export interface OutboxOutcome {
  ok: boolean;
  /** A failure not worth retrying (a refusal that will not change, nothing left to deliver). */
  permanent?: boolean;
  error: string | null;
}

/** The runner's decision after an attempt, which the queue records. */
export interface Verdict {
  /** This attempt's number (1 for the first). */
  attempt: number;
  /** The attempt failed and no other will follow: permanent, or `retryHours` after the delivery was queued. */
  giveUp: boolean;
  /** When to try again (a failure not given up), else null. */
  retryAt: Date | null;
}

/** What the claim statement is given: the lanes busy in this process, the room left, the time and lease. */
export interface ClaimRequest {
  /** Deliveries in flight in this process, per lane. */
  busy: Array<[lane: string, inFlight: number]>;
  /** At most this many in flight per lane (in this process). */
  laneConcurrency: number;
  /** At most this many rows to claim. */
  limit: number;
  now: Date;
  /** How long each claimed row is leased: not claimed again before, unless its outcome is recorded. */
  leaseMs: number;
}

/**
 * What differs between two outbox deliveries (webhooks, e-mail): which rows, how to deliver one, how to
 * record it. Everything else (polling, lanes, single-flight claims, leases, retry and give-up, bounded
 * recording, drain and shutdown) is the runner's.
 */
export interface OutboxQueue<Item extends OutboxItem, Outcome extends OutboxOutcome> {
  /** For logs. */
  readonly name: string;
  /** Transaction-scoped advisory lock serializing claims across processes: a claim never waits for the other steps. */
  readonly claimLock: number;
  /** Deliveries in flight per lane. */
  readonly laneConcurrency: number;
  /** Deliveries in flight in all (per process); `Infinity` for no bound beyond the lanes'. */
  readonly maxInFlight: number;
  /** Rows claimed by one statement at most. */
  readonly claimLimit: number;
  /** A claimed row's lease: the longest an attempt can take plus a margin. */
  readonly leaseMs: number;
  /** Failures are retried until this long after the delivery was queued. */
  readonly retryHours: number;
  /** The wait before the attempt after attempt `attempt` failed. */
  backoffMs(attempt: number): number;
  /**
   * Work done before the claims of a round, under the queue's own lock (dispatch, fan-out): how many
   * rows it handled, or null when another process holds the lock (the round then claims nothing).
   */
  prepare(): Promise<number | null>;
  /**
   * One set-based statement, run holding `claimLock`: the due rows of the lanes with room, at most
   * `laneConcurrency - busy` per lane and `limit` in all, each leased (its due time moved `leaseMs`
   * ahead) and returned in the order they should start.
   */
  claim(em: EntityManager, request: ClaimRequest): Promise<Item[]>;
  /** One attempt; never throws (a failure is an outcome). */
  deliver(item: Item): Promise<Outcome>;
  /** Records an attempt's outcome in one short transaction (which ends the lease). */
  record(item: Item, outcome: Outcome, verdict: Verdict): Promise<void>;
  /** After each round (pruning). */
  housekeeping?(): Promise<void>;
}

export interface RunnerOptions {
  pollMs: number;
  /** The time the runner decides at (tests move it); the queue's claim and record use the same clock. */
  clock?: () => Date;
}

/** Outcomes recorded at once (each a short transaction): the workers leave the pool to the API. */
const RECORD_CONCURRENCY = 2;

export interface TickCounts {
  /** False when another process held the queue's lock. */
  locked: boolean;
  /** What `prepare` handled. */
  prepared: number;
  /** Deliveries started. */
  started: number;
}

/**
 * The leader-locked, lane-fair delivery loop of an outbox (docs/outbox.md). Each round runs the queue's
 * `prepare`, then claims: one statement takes every lane's due rows up to its free slots and leases them;
 * each claimed row is delivered without the round waiting for it, and when one ends its lane's next due
 * row is claimed at once (while started), so a slow peer only holds its own lane's slots. An attempt's
 * outcome is recorded with the runner's verdict: done, retried after `backoffMs`, or given up
 * (permanent, or `retryHours` after the row was queued). At least once: a process that dies between an
 * attempt and its record leaves the row leased, and it is attempted again when the lease ends.
 */
export class OutboxRunner<Item extends OutboxItem, Outcome extends OutboxOutcome> implements Worker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  /** In flight per lane, and the attempts' promises. */
  private readonly busy = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  private claiming: Promise<number> | null = null;
  private claimAgain = false;
  private recording = 0;
  private readonly waitingToRecord: Array<() => void> = [];
  readonly clock: () => Date;

  constructor(
    private readonly orm: MikroORM,
    private readonly queue: OutboxQueue<Item, Outcome>,
    private readonly options: RunnerOptions,
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.round()
        .catch((err) => logger.error({ err }, `${this.queue.name} worker round failed`))
        .finally(() => (this.running = null));
    }, this.options.pollMs);
    this.timer.unref();
  }

  /** Stops taking work and waits for the attempts in flight (each ends by its timeout). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    await this.claiming?.catch(() => undefined);
    await this.settle();
  }

  /** The service's round: prepare, then start the due deliveries without waiting for them. */
  private async round(): Promise<void> {
    if ((await this.queue.prepare()) === null) return;
    await this.claim();
    await this.queue.housekeeping?.();
  }

  /** One round that also waits for the attempts it started (tests, shutdown). */
  async tick(): Promise<TickCounts> {
    const prepared = await this.queue.prepare();
    if (prepared === null) return { locked: false, prepared: 0, started: 0 };
    const started = await this.claim();
    await Promise.allSettled([...this.sending]);
    await this.queue.housekeeping?.();
    return { locked: true, prepared, started };
  }

  /** Rounds until nothing is left to prepare or due now (tests, shutdown). */
  async drain(maxRounds = 50): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      const r = await this.tick();
      if (!r.locked || (r.prepared === 0 && r.started === 0)) return;
    }
  }

  /** Waits for the attempts in flight, and those they started. */
  async settle(): Promise<void> {
    while (this.sending.size) await Promise.allSettled([...this.sending]);
  }

  /** Claims and starts what is due. Single flight: a call during a claim runs one more claim after it. Returns how many started. */
  private claim(): Promise<number> {
    if (this.claiming) {
      this.claimAgain = true;
      return this.claiming;
    }
    const run = async () => {
      let started = 0;
      do {
        this.claimAgain = false;
        started += await this.claimOnce();
      } while (this.claimAgain);
      return started;
    };
    this.claiming = run().finally(() => (this.claiming = null));
    return this.claiming;
  }

  private async claimOnce(): Promise<number> {
    const q = this.queue;
    let inFlight = 0;
    for (const n of this.busy.values()) inFlight += n;
    const limit = Math.min(q.claimLimit, q.maxInFlight - inFlight);
    if (limit <= 0) return 0;
    const request: ClaimRequest = { busy: [...this.busy], laneConcurrency: q.laneConcurrency, limit, now: this.clock(), leaseMs: q.leaseMs };
    const rows = (await withXactLock(this.orm, q.claimLock, (em) => q.claim(em, request))) ?? [];
    for (const row of rows) this.launch(row);
    return rows.length;
  }

  /** Delivers one claimed row and records its outcome; its lane's next due row follows at once. */
  private launch(item: Item): void {
    this.busy.set(item.lane, (this.busy.get(item.lane) ?? 0) + 1);
    const done: Promise<void> = this.attempt(item)
      .then((outcome) => this.record(item, outcome))
      .catch((err) => logger.error({ err, delivery: item.id }, `${this.queue.name} delivery could not be recorded; it is attempted again when its lease ends`))
      .finally(() => {
        const n = (this.busy.get(item.lane) ?? 1) - 1;
        if (n > 0) this.busy.set(item.lane, n);
        else this.busy.delete(item.lane);
        this.sending.delete(done);
        if (this.timer) void this.claim().catch((err) => logger.error({ err }, `${this.queue.name} worker claim failed`));
      });
    this.sending.add(done);
  }

  /**
   * One attempt, in a span when tracing is on: a child of the trace that queued the row (its
   * `traceparent`), else a trace of its own. Its HTTP request or mail is the span's child.
   */
  private attempt(item: Item): Promise<Outcome> {
    if (!tracingOn()) return this.queue.deliver(item);
    const attributes = {
      'messaging.system': 'leadnet.outbox',
      'messaging.operation.type': 'process',
      'messaging.destination.name': this.queue.name,
      'messaging.message.id': item.id,
      'leadnet.delivery.attempt': item.attempts + 1,
    };
    const parent = item.traceparent ? contextOf({ traceparent: item.traceparent }) : ROOT_CONTEXT;
    return inSpan(`${this.queue.name} deliver`, { kind: SpanKind.CONSUMER, parent, attributes }, async (span) => {
      const outcome = await this.queue.deliver(item);
      if (!outcome.ok) {
        span?.setAttribute('error.type', outcome.permanent ? 'permanent' : 'retried');
        span?.setStatus({ code: SpanStatusCode.ERROR });
      }
      return outcome;
    });
  }

  /** The verdict on an attempt: retried with backoff until `retryHours` after the row was queued, unless permanent. */
  verdict(item: Item, outcome: Outcome): Verdict {
    const attempt = item.attempts + 1;
    if (outcome.ok) return { attempt, giveUp: false, retryAt: null };
    const now = this.clock().getTime();
    const giveUp = !!outcome.permanent || now - new Date(item.created_at).getTime() >= this.queue.retryHours * 3_600_000;
    return { attempt, giveUp, retryAt: giveUp ? null : new Date(now + this.queue.backoffMs(attempt)) };
  }

  private async record(item: Item, outcome: Outcome): Promise<void> {
    if (this.recording < RECORD_CONCURRENCY) this.recording++;
    else await new Promise<void>((resolve) => this.waitingToRecord.push(resolve));
    try {
      await this.queue.record(item, outcome, this.verdict(item, outcome));
    } finally {
      // The slot passes straight to the next waiter.
      const next = this.waitingToRecord.shift();
      if (next) next();
      else this.recording--;
    }
  }
}
