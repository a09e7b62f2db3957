import { Client } from 'pg';
import { listen } from '../db/listen';
import { BudgetedCache, stringBytes } from '../memory';
import type { Caller } from './caller';
import { logger } from '../logger';

/** The channel the triggers of Migration20261128110000_auth_changes NOTIFY when a key or a caller changes. */
export const AUTH_CHANGES_CHANNEL = 'leadnet_auth_changes';
const RECONNECT_MS = 1000;

/** A kept caller's bytes: its key hash, its object and its ids (strings of 36 characters, or longer). */
function callerBytes(caller: Caller, hash: string): number {
  let bytes = stringBytes(hash) + 256;
  for (const ids of [caller.companyRetailerIds, caller.companyRetailerLocationIds, caller.retailerLocationIds]) {
    for (const id of ids) bytes += 8 + stringBytes(id);
  }
  return bytes;
}

/**
 * The callers of recently used API keys (by key hash), so that a request does not read its key again.
 * An entry lives at most `ttlMs`; any change to a key, a user or a user's scope assignments, in this
 * process or another, empties the cache: the database NOTIFYs `leadnet_auth_changes` from triggers on
 * those tables, heard on a dedicated LISTEN connection, and this process's own writes call `invalidate`
 * after they commit. Only while that connection listens is anything served from the cache (after a lost
 * connection every request reads its key until it listens again). Unknown and revoked keys are never
 * kept. With `ttlMs` 0 nothing is kept.
 */
export class CallerCache {
  private readonly entries: BudgetedCache<string, Caller> | null;
  private client: Client | null = null;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  /** Bumped by every invalidation: a read begun before one is not kept after it. */
  private generation = 0;

  constructor(
    private readonly url: string,
    readonly ttlMs: number,
  ) {
    this.entries = ttlMs > 0 ? new BudgetedCache<string, Caller>('api_key_callers', { sizeOf: callerBytes, ttl: ttlMs }) : null;
  }

  /** Starts listening for changes; until it listens, nothing is served from the cache. */
  async start(): Promise<void> {
    if (this.entries) await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.invalidate();
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  /** Forgets every caller (a key, a user or an assignment changed). */
  invalidate(): void {
    this.generation++;
    this.entries?.clear();
  }

  /** The caller of the key with this hash: kept, or read by `read` (and kept when it is a caller). */
  async get(hash: string, read: () => Promise<Caller | null>): Promise<Caller | null> {
    if (!this.entries || !this.listening) return read();
    const kept = this.entries.get(hash);
    if (kept) return kept;
    const generation = this.generation;
    const caller = await read();
    if (caller && generation === this.generation && this.listening) this.entries.set(hash, caller);
    return caller;
  }

  /** Entries held now (tests, metrics). */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', () => this.invalidate());
    try {
      await client.connect();
      await listen(client, AUTH_CHANGES_CHANNEL);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      // Whatever changed while nobody listened is unknown: start empty.
      this.invalidate();
      this.listening = true;
    } catch (err) {
      this.lost(client, err);
    }
  }

  private lost(client: Client, err?: unknown): void {
    if (this.client !== null && this.client !== client) return;
    this.listening = false;
    this.invalidate();
    if (this.client === client) this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    if (err) logger.warn({ err }, 'API key cache: change listener lost; reading every key until it is back');
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.connect();
    }, RECONNECT_MS);
    // A retry never keeps a stopping process alive.
    this.retry.unref();
  }
}
