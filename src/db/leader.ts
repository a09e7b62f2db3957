import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Client, type ClientConfig } from 'pg';
import { logger } from '../logger';

/** A background worker that must run in one process at a time (an outbox drainer). */
export interface Worker {
  start(): void;
  /** Resolves when the work in flight is done. */
  stop(): Promise<void>;
}

export interface LeaderOptions {
  /** How often a standby tries to take over, and how often the leader checks its lock connection. */
  retryMs: number;
  /** Bound on each lock statement (a hung server must not hang the check). */
  queryTimeoutMs: number;
}

export const DEFAULT_LEADER_OPTIONS: LeaderOptions = { retryMs: 2000, queryTimeoutMs: 5000 };

/**
 * Runs a worker in exactly one of the processes sharing a database: each process holds a dedicated
 * connection and tries `pg_try_advisory_lock(key)`; the one that gets it starts the worker. The lock
 * is the connection's: when the leading process dies (even `kill -9`) PostgreSQL ends its session and
 * frees the lock, and a standby takes over within `retryMs`. When the leader loses its connection it
 * stops the worker before anyone else can start one, as far as it can tell; workers must still make
 * their own steps safe to overlap (the search indexer's per-batch transaction lock does), because a
 * network partition can hide a lost lock for a moment.
 */
export class LeaderLock {
  readonly options: LeaderOptions;
  private client: Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private leading = false;
  private stopped = true;
  private cycle: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: ClientConfig,
    private readonly key: number,
    private readonly worker: Worker,
    private readonly name: string,
    options: Partial<LeaderOptions> = {},
  ) {
    this.options = { ...DEFAULT_LEADER_OPTIONS, ...options };
  }

  /** Whether this process runs the worker now. */
  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the worker (if leading) and releases the lock by closing its connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.cycle;
    await this.resign();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.cycle = this.check().finally(() => this.schedule(this.options.retryMs));
    }, ms);
    this.timer.unref?.();
  }

  /** One round: connect if needed, then take the lock (standby) or prove the connection alive (leader). */
  private async check(): Promise<void> {
    try {
      if (!this.client) this.client = await this.connect();
      if (this.leading) {
        await this.client.query('select 1');
        return;
      }
      const { rows } = await this.client.query('select pg_try_advisory_lock($1) as locked', [this.key]);
      if (rows[0]?.locked && !this.stopped) {
        this.leading = true;
        logger.info({ worker: this.name, pid: process.pid }, 'leading: this process runs the worker');
        this.worker.start();
      }
    } catch (err) {
      logger.warn({ err, worker: this.name }, 'worker lock connection failed');
      await this.resign();
    }
  }

  private async connect(): Promise<Client> {
    const client = new Client({ ...this.connection, query_timeout: this.options.queryTimeoutMs, connectionTimeoutMillis: this.options.queryTimeoutMs, keepAlive: true });
    // A connection lost between checks: the lock is gone with the session, so stop at once.
    client.on('error', (err) => {
      if (this.client !== client) return;
      logger.warn({ err, worker: this.name }, 'worker lock connection lost');
      void this.resign();
    });
    client.on('end', () => {
      if (this.client === client) void this.resign();
    });
    try {
      await client.connect();
    } catch (e) {
      client.end().catch(() => undefined);
      throw e;
    }
    return client;
  }

  private async resign(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (this.leading) {
      this.leading = false;
      logger.info({ worker: this.name, pid: process.pid }, 'no longer leading: worker stopped');
      await this.worker.stop();
    }
    // Ending the session releases the lock (after the worker stopped, so no one overlaps it).
    await client?.end().catch(() => undefined);
  }
}

/**
 * Runs `work` in a transaction holding the transaction-scoped advisory lock `key`, or returns null at
 * once when another session holds it. A crash ends the transaction and frees the lock; whatever it had
 * not committed is done again by the next holder (at-least-once).
 */
export async function withXactLock<T>(orm: MikroORM, key: number, work: (em: EntityManager) => Promise<T>): Promise<T | null> {
  return (orm.em as EntityManager).fork().transactional(async (em) => {
    const [{ locked }] = await em.execute('select pg_try_advisory_xact_lock(?) as locked', [key]);
    return locked ? work(em) : null;
  });
}

/** `worker` under a `LeaderLock` on the ORM's database: one process at a time runs it; call `start()` on the result. */
export function leaderLocked(orm: MikroORM, key: number, worker: Worker, name: string, retryMs: number): LeaderLock {
  return new LeaderLock(orm.em.getConnection().getConnectionOptions() as ClientConfig, key, worker, name, { retryMs });
}

/**
 * Runs `work` while this process holds the session-level advisory lock (`classId`, `name`) on a
 * connection of its own, or returns null at once when another session holds it. Unlike
 * `withXactLock`, no transaction stays open for the minutes `work` may take; the lock is the
 * connection's, so a process that dies (even `kill -9`) frees it with its session.
 */
export async function withSessionLock<T>(connection: ClientConfig, classId: number, name: string, work: () => Promise<T>): Promise<T | null> {
  const client = new Client({ ...connection, keepAlive: true });
  client.on('error', (err) => logger.warn({ err, lock: name }, 'lock connection lost: the lock is free until the work ends'));
  await client.connect();
  try {
    const { rows } = await client.query('select pg_try_advisory_lock($1, hashtext($2)) as locked', [classId, name]);
    return rows[0]?.locked ? await work() : null;
  } finally {
    await client.end().catch(() => undefined);
  }
}
