import { Client } from 'pg';
import { listen } from '../../db/listen';
import { BudgetedCache, stringBytes } from '../../memory';
import { logger } from '../../logger';

/** The channel Migration20261207000200_store_pages's triggers NOTIFY when anything a page shows changes. */
export const STORE_PAGES_CHANNEL = 'leadnet_store_pages';
const RECONNECT_MS = 1000;

/** A rendered answer: a page (200, 404) or a redirect, with its validators. */
export interface RenderedPage {
  status: number;
  /** The body's bytes (UTF-8 HTML or text). */
  body: Buffer;
  contentType: string;
  /** Strong ETag of the body. */
  etag: string;
  /** When the answer was rendered (seconds precision: `Last-Modified`). */
  lastModified: Date;
  /** A redirect's target. */
  location?: string;
}

/**
 * Rendered store pages by URL, bounded by bytes (`store_pages` share, src/memory.ts) and living at most
 * `ttlMs` (the "today" a page shows moves with the clock). Any write to what a page shows, in this process
 * or another, empties it: the database NOTIFYs `leadnet_store_pages` from triggers, heard on a dedicated
 * LISTEN connection. Only while that connection listens is anything served from the cache. With `ttlMs`
 * 0 nothing is kept.
 */
export class StorePagesCache {
  private readonly entries: BudgetedCache<string, RenderedPage> | null;
  private client: Client | null = null;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  /** Bumped by every purge: a page rendered from reads begun before one is not kept after it. */
  private generation = 0;
  /** Purges heard (tests wait for one). */
  purges = 0;

  constructor(
    private readonly url: string,
    readonly ttlMs: number,
    maxBytes?: number,
  ) {
    this.entries = ttlMs > 0 ? new BudgetedCache<string, RenderedPage>('store_pages', { sizeOf: (v, k) => stringBytes(k) + v.body.length + 200, ttl: ttlMs, maxBytes }) : null;
  }

  async start(): Promise<void> {
    if (this.entries) await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.purge();
    const client = this.client;
    this.client = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  purge(): void {
    this.generation++;
    this.purges++;
    this.entries?.clear();
  }

  /** The kept answer for `key`, or the one `render` makes (kept when the cache listens and nothing changed meanwhile). */
  async get(key: string, render: () => Promise<RenderedPage>): Promise<RenderedPage> {
    if (!this.entries || !this.listening) return render();
    const kept = this.entries.get(key);
    if (kept) return kept;
    const generation = this.generation;
    const page = await render();
    if (generation === this.generation && this.listening) this.entries.set(key, page);
    return page;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', () => this.purge());
    try {
      await client.connect();
      await listen(client, STORE_PAGES_CHANNEL);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.purge();
      this.listening = true;
    } catch (err) {
      this.lost(client, err);
    }
  }

  private lost(client: Client, err?: unknown): void {
    if (this.client !== null && this.client !== client) return;
    this.listening = false;
    this.purge();
    if (this.client === client) this.client = null;
    client.end().catch(() => undefined);
    if (this.stopped || this.retry) return;
    if (err) logger.warn({ err }, 'store pages: change listener lost; rendering every page until it is back');
    this.retry = setTimeout(() => {
      this.retry = null;
      if (!this.stopped) void this.connect();
    }, RECONNECT_MS);
    this.retry.unref();
  }
}
