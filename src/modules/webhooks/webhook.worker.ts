import { post, RefusedAddressError } from './webhook.address';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../../config';
import { organisationAdmin } from '../../auth/caller';
import type { ContextDeps } from '../../context';
import { Loaders } from '../../graphql/loaders';
import { logger } from '../../logger';
import { OperationRegistry } from '../../rest/operations';
import { RestExecutor } from '../../rest/executor';
import { compileScope } from '../../search/where';
import { fromClause } from '../../search/types';
import { query } from '../../db/sql';
import { leadScope, leadSearch } from '../lead/lead.search';
import { pgArray } from '../../db/sql';
import { toDate } from './webhook.service';
import { backoffMs, openSecret, SIGNATURE_HEADER, signatureHeader } from './webhook.signature';

/** Advisory lock key of the delivery worker: one process delivers at a time, whatever runs. */
export const WEBHOOK_LOCK = 7_312_014;
/** Held for as long as a process is the one running the webhook worker (src/db/leader.ts). */
export const WEBHOOK_WORKER_LEADER = 7_312_015;
const DISPATCH_BATCH = 100;
const DELIVERY_BATCH = 20;
const CONCURRENCY = 5;

/**
 * Runs `work` in a transaction holding the webhook worker's transaction-scoped advisory lock, or
 * returns null at once when another process holds it. A crash ends the transaction and frees the lock;
 * whatever it had not committed is done again by the next holder (at-least-once).
 */
export async function withWebhookLock<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>): Promise<T | null> {
  return (orm.em as EntityManager).fork().transactional(async (em) => {
    const [{ locked }] = await em.execute('select pg_try_advisory_xact_lock(?) as locked', [WEBHOOK_LOCK]);
    return locked ? work(em) : null;
  });
}

export interface TickResult {
  /** False when another process held the lock. */
  locked: boolean;
  dispatched: number;
  attempted: number;
}

/** How often the leader prunes old events, and in batches of how many rows (at most how many batches a round). */
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const PRUNE_BATCH = 1000;
const PRUNE_MAX_BATCHES = 100;

/**
 * Delivers lead events to webhook endpoints from PostgreSQL: dispatch fans each new `lead_events` row out
 * to the enabled endpoints subscribed to its type whose owner may see the lead (the lead read scope of the
 * owner's admin), with the lead as its REST show serializes it then; delivery POSTs due deliveries,
 * signed, and retries failures with backoff for `retryHours`, disabling an endpoint failing for
 * `disableAfterHours`.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  private prunedAt = 0;
  private running: Promise<unknown> | null = null;
  private readonly executor: RestExecutor;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: Config,
    private readonly deps: ContextDeps,
    schema: GraphQLSchema,
  ) {
    this.executor = new RestExecutor(schema, new OperationRegistry(schema), deps);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => logger.error({ err }, 'webhook worker tick failed'))
        .finally(() => (this.running = null));
    }, this.config.webhooks.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: dispatch new events, then attempt the due deliveries; now and then prune old events. */
  async tick(): Promise<TickResult> {
    const dispatched = await withWebhookLock(this.orm, (em) => this.dispatch(em));
    if (dispatched === null) return { locked: false, dispatched: 0, attempted: 0 };
    const attempted = (await withWebhookLock(this.orm, (em) => this.deliver(em))) ?? 0;
    if (Date.now() - this.prunedAt >= PRUNE_INTERVAL_MS) {
      this.prunedAt = Date.now();
      await this.prune();
    }
    return { locked: true, dispatched, attempted };
  }

  /**
   * Deletes lead events older than `LEAD_EVENTS_RETENTION_DAYS` that are dispatched and that no pending
   * delivery still needs, with their deliveries and attempts (the delivery log, by cascade), in batches
   * of `PRUNE_BATCH` rows, each its own short statement. Returns how many events went.
   */
  async prune(): Promise<number> {
    const em = this.orm.em.fork() as EntityManager;
    let deleted = 0;
    for (let batch = 0; batch < PRUNE_MAX_BATCHES; batch++) {
      const rows = await em.execute(
        `delete from lead_events where id in (
           select e.id from lead_events e
            where e.dispatched_at is not null and e.occurred_at < now() - make_interval(days => ?)
              and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
            order by e.occurred_at limit ?)
         returning id`,
        [this.config.webhooks.retentionDays, PRUNE_BATCH],
      );
      deleted += rows.length;
      if (rows.length < PRUNE_BATCH) break;
    }
    if (deleted) logger.info({ deleted, retentionDays: this.config.webhooks.retentionDays }, 'webhooks: pruned old lead events');
    return deleted;
  }

  /** Runs rounds until nothing is left to dispatch or due (tests, shutdown). */
  async drain(maxRounds = 50): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      const r = await this.tick();
      if (!r.locked || (r.dispatched === 0 && r.attempted === 0)) return;
    }
  }

  private async dispatch(em: EntityManager): Promise<number> {
    const events = await em.execute(
      `select * from lead_events where dispatched_at is null order by seq limit ? for update skip locked`,
      [DISPATCH_BATCH],
    );
    if (!events.length) return 0;
    const types = [...new Set(events.map((e: any) => e.type as string))];
    const endpoints = await em.execute(`select * from webhook_endpoints where enabled and events && ?::text[]`, [pgArray(types)]);
    const payloads = new Map<string, unknown>();
    for (const endpoint of endpoints) {
      const wanted = events.filter((e: any) => endpoint.events.includes(e.type));
      if (!wanted.length) continue;
      const cond = compileScope(leadSearch, leadScope(organisationAdmin({ companyId: endpoint.owner_company_id, retailerId: endpoint.owner_retailer_id })));
      const visible = new Set(
        (
          await query(em, `select l.id from ${fromClause(leadSearch, cond.sql)} where l.id = any(?::uuid[]) and (${cond.sql})`, [
            [...new Set(wanted.map((e: any) => e.lead_id as string))],
            ...cond.bindings,
          ])
        ).map((r: any) => r.id),
      );
      const mine = wanted.filter((e: any) => visible.has(e.lead_id));
      for (const e of mine) if (!payloads.has(e.id)) payloads.set(e.id, await this.leadJson(e));
      if (mine.length) {
        await em.execute(
          `insert into webhook_deliveries (endpoint_id, event_id) select ?, unnest(?::uuid[]) on conflict do nothing`,
          [endpoint.id, pgArray(mine.map((e: any) => e.id))],
        );
      }
    }
    for (const [id, lead] of payloads) await em.execute(`update lead_events set payload = ?::jsonb where id = ?`, [JSON.stringify(lead), id]);
    await em.execute(`update lead_events set dispatched_at = now() where id = any(?::uuid[])`, [pgArray(events.map((e: any) => e.id))]);
    return events.length;
  }

  /** The lead as `GET /v1/leads/:id` serializes it for its owner's admin; null once it is gone. */
  private async leadJson(event: any): Promise<unknown> {
    const em = (this.orm.em as EntityManager).fork();
    const caller = organisationAdmin({ companyId: event.owner_company_id, retailerId: event.owner_retailer_id });
    const ctx = { em, caller, loaders: new Loaders(em), config: this.deps.config, search: this.deps.search, geocoder: this.deps.geocoder };
    try {
      return await this.executor.run(ctx, 'ShowLead', { id: event.lead_id });
    } catch {
      return null;
    }
  }

  private async deliver(em: EntityManager): Promise<number> {
    const due = await em.execute(
      `select d.id, d.attempts, d.created_at, d.endpoint_id, w.url, w.secret, w.failing_since, w.owner_company_id, w.owner_retailer_id,
              e.id as event_id, e.type, e.occurred_at, e.lead_id, e.lead_activity_id, e.data, e.payload
         from webhook_deliveries d
         join webhook_endpoints w on w.id = d.endpoint_id and w.enabled
         join lead_events e on e.id = d.event_id
        where d.status = 'pending' and d.next_attempt_at <= now()
        order by d.next_attempt_at, d.id limit ? for update of d skip locked`,
      [DELIVERY_BATCH],
    );
    const queue = [...due];
    const results: Array<{ row: any; outcome: Outcome }> = [];
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
        for (let row = queue.shift(); row; row = queue.shift()) results.push({ row, outcome: await this.send(row) });
      }),
    );
    const w = this.config.webhooks;
    for (const { row, outcome } of results) {
      const attempt = row.attempts + 1;
      await em.execute(
        `insert into webhook_delivery_attempts (delivery_id, attempt, succeeded, response_code, duration_ms, error) values (?, ?, ?, ?, ?, ?)`,
        [row.id, attempt, outcome.ok, outcome.status, outcome.durationMs, outcome.error],
      );
      if (outcome.ok) {
        await em.execute(
          `update webhook_deliveries set status = 'succeeded', attempts = ?, next_attempt_at = null, last_response_code = ?, last_error = null, updated_at = now() where id = ?`,
          [attempt, outcome.status, row.id],
        );
        await em.execute(`update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`, [row.endpoint_id]);
        continue;
      }
      const giveUp = Date.now() - toDate(row.created_at)!.getTime() >= w.retryHours * 3_600_000;
      await em.execute(
        `update webhook_deliveries set status = ?, attempts = ?, next_attempt_at = ?, last_response_code = ?, last_error = ?, updated_at = now() where id = ?`,
        [giveUp ? 'failed' : 'pending', attempt, giveUp ? null : new Date(Date.now() + backoffMs(attempt)), outcome.status, outcome.error, row.id],
      );
      await em.execute(
        `update webhook_endpoints set failing_since = coalesce(failing_since, now()),
                enabled = failing_since is null or failing_since > now() - make_interval(secs => ?),
                disabled_reason = case when failing_since is not null and failing_since <= now() - make_interval(secs => ?)
                                       then 'failing for ' || ? || ' hours' else disabled_reason end
          where id = ?`,
        [w.disableAfterHours * 3600, w.disableAfterHours * 3600, String(w.disableAfterHours), row.endpoint_id],
      );
    }
    return results.length;
  }

  /** One signed POST (`post`): no redirects followed, a timeout, the response body never read, public addresses only. */
  private async send(row: any): Promise<Outcome> {
    const w = this.config.webhooks;
    const owner = row.owner_company_id ? { type: 'Company', id: row.owner_company_id } : { type: 'Retailer', id: row.owner_retailer_id };
    const event: Record<string, unknown> = {
      id: row.event_id,
      type: row.type,
      occurred_at: toDate(row.occurred_at)!.toISOString(),
      owner,
      data: { ...(row.data ?? {}), ...(row.lead_activity_id ? { lead_activity_id: row.lead_activity_id } : {}) },
      lead: row.payload ?? null,
    };
    let body = JSON.stringify(event);
    if (Buffer.byteLength(body) > w.maxBodyBytes) body = JSON.stringify({ ...event, lead: { id: row.lead_id }, truncated: true });
    const started = performance.now();
    try {
      const secret = openSecret(row.secret, w.secretKey);
      const res = await post(
        row.url,
        body,
        {
          'Content-Type': 'application/json',
          'User-Agent': 'leadnet-webhooks/1',
          'Leadnet-Event-Id': row.event_id,
          'Leadnet-Event-Type': row.type,
          'Leadnet-Delivery-Id': row.id,
          'Leadnet-Delivery-Attempt': String(row.attempts + 1),
          [SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
        },
        { timeoutMs: w.timeoutMs, allowPrivate: w.allowPrivateUrls },
      );
      const durationMs = Math.round(performance.now() - started);
      const ok = res.status >= 200 && res.status < 300;
      const error = ok ? null : res.status >= 300 && res.status < 400 ? `redirect to ${res.location ?? '?'} not followed` : `HTTP ${res.status}`;
      return { ok, status: res.status, durationMs, error };
    } catch (err) {
      const e = err as Error & { code?: string };
      const error =
        e.name === 'AbortError' || e.name === 'TimeoutError'
          ? `timed out after ${w.timeoutMs} ms`
          : e instanceof RefusedAddressError
            ? `refused: ${e.message}`
            : (e.code ?? e.message).slice(0, 500);
      return { ok: false, status: null, durationMs: Math.round(performance.now() - started), error };
    }
  }
}

interface Outcome {
  ok: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** The worker for an app's schema and context dependencies (started by `buildApp` unless WEBHOOK_WORKER=false). */
export function createWebhookWorker(orm: MikroORM, deps: ContextDeps, schema: GraphQLSchema): WebhookWorker {
  return new WebhookWorker(orm, deps.config, deps, schema);
}
