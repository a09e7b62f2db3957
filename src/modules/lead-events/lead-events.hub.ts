import { Client } from 'pg';
import { listen } from '../../db/listen';
import { logger } from '../../logger';
import { lastLeadEventSeq, readLeadEvents, type LeadEventRow } from './lead-event.repository';

type Listener = (event: LeadEventRow) => void;

const CHANNEL = 'leadnet_lead_events';
const BATCH = 500;
const RECONNECT_MS = 1000;

/**
 * Hears of committed lead events in this process, wherever they were written: a dedicated connection
 * LISTENs on `leadnet_lead_events` (each event's id is NOTIFYed at commit, to every process) and reads
 * the notified events. After a lost connection it reconnects and reads every event after the last one it
 * delivered: live delivery, not a durable queue (webhooks are the durable path).
 */
export class LeadEventHub {
  private readonly listeners = new Set<Listener>();
  private client: Client | null = null;
  private lastSeq: string | null = null;
  private pending: string[] = [];
  private catchUp = false;
  private draining: Promise<void> | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly url: string) {}

  /** Starts listening; events committed from now on are delivered. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.listeners.clear();
    const client = this.client;
    this.client = null;
    await this.draining?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  /** Listeners registered now: one per live subscription this process serves. */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Calls `listener` for every event from now on; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    // Without listeners notified events are not read (`readEvents`), so where to catch up from after a
    // lost connection is known again from the first subscriber on.
    if (this.lastSeq === null && this.client) lastLeadEventSeq(this.client).then((seq) => (this.lastSeq ??= seq), () => undefined);
    return () => void this.listeners.delete(listener);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (n) => {
      if (n.payload) this.pending.push(n.payload);
      this.drain();
    });
    try {
      await client.connect();
      await listen(client, CHANNEL);
      if (this.lastSeq === null) this.lastSeq = await lastLeadEventSeq(client);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // What was committed while the connection was down (notifications are not replayed).
    this.catchUp = true;
    this.drain();
  }

  private lost(client: Client, err?: unknown): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    logger.warn({ err }, 'lead events: listening connection lost; reconnecting');
    // A retry never keeps a stopping process alive (unref), and none is armed once stopped.
    const retry = () => {
      if (this.stopped) return;
      this.retry = setTimeout(attempt, RECONNECT_MS);
      this.retry.unref();
    };
    const attempt = () => {
      this.retry = null;
      if (this.stopped) return;
      this.connect().catch(retry);
    };
    retry();
  }

  /** Single flight: notifications arriving during a read are read next. */
  private drain(): void {
    if (this.draining) return;
    this.draining = (async () => {
      while ((this.pending.length || this.catchUp) && !this.stopped) await this.readEvents();
    })()
      .catch((err) => logger.warn({ err }, 'lead events: reading new events failed'))
      .finally(() => {
        this.draining = null;
      });
  }

  private async readEvents(): Promise<void> {
    const client = this.client;
    if (!client) return;
    if (!this.listeners.size) {
      // Nobody in this process subscribes: a create must not cost every process a read.
      this.pending.length = 0;
      this.catchUp = false;
      this.lastSeq = null;
      return;
    }
    const catchUp = this.catchUp;
    const ids = this.pending.splice(0, BATCH);
    this.catchUp = false;
    const rows = await readLeadEvents(client, ids, catchUp, this.lastSeq);
    const delivered = new Set<string>();
    for (const row of rows) {
      if (delivered.has(row.id)) continue;
      delivered.add(row.id);
      if (BigInt(row.seq) > BigInt(this.lastSeq ?? '0')) this.lastSeq = row.seq;
      for (const listener of this.listeners) listener(row);
    }
  }
}
