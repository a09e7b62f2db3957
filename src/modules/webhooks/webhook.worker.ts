import { post, RefusedAddressError, type LookupFunction } from './webhook.address';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../../config';
import { organisationAdmin } from '../../auth/caller';
import type { ContextDeps } from '../../context';
import { Loaders } from '../../db/loaders';
import { logger } from '../../logger';
import { inSpan, SpanKind, withTraceHeaders } from '../../tracing';
import { OperationRegistry } from '../../rest/operations';
import { RestExecutor } from '../../rest/executor';
import { compileScope } from '../../search/where';
import { leadSearch } from '../lead/lead.search';
import { leadScope } from '../lead/lead.policy';
import { toDate } from './webhook.service';
import { leadEventEnvelope } from '../lead-events/lead-event.types';
import { withXactLock } from '../../db/leader';
import { OutboxRunner, type ClaimRequest, type OutboxItem, type OutboxOutcome, type OutboxQueue, type Verdict } from '../../outbox/runner';
import { backoffMs, openSecret, SIGNATURE_HEADER, signatureHeader } from './webhook.signature';
import {
  claimDeliveries,
  deleteOldEvents,
  insertAttempt,
  insertDeliveries,
  leadIdsInScope,
  listeningEndpoints,
  lockUndispatchedEvents,
  markDelivered,
  markDispatched,
  markFailed,
  storePayloads,
  type ClaimedDelivery,
  type ListeningEndpoint,
  type UndispatchedEvent,
} from './webhook.repository';

/** Advisory lock key of the worker's dispatch: one process at a time fans events out. */
export const WEBHOOK_LOCK = 7_312_014;
/** Held for as long as a process is the one running the webhook worker (src/db/leader.ts). */
export const WEBHOOK_WORKER_LEADER = 7_312_015;
/** Advisory lock key of claiming deliveries: one claim at a time, never waiting for a dispatch batch. */
export const WEBHOOK_CLAIM_LOCK = 7_312_016;
const DISPATCH_BATCH = 100;
/** A round stops dispatching after this long (the newest events go first, so a backlog only waits). */
const DISPATCH_BUDGET_MS = 500;
/** Events with listeners a batch serializes the lead of, at most (the rest wait for the next batch). */
const PAYLOADS_PER_BATCH = 50;
const PAYLOAD_CONCURRENCY = 4;
/** Requests in flight per endpoint: a slow or hanging endpoint holds only its own. */
export const ENDPOINT_CONCURRENCY = 4;
/** Deliveries claimed by one statement, whatever the number of endpoints. */
const CLAIM_LIMIT = 1000;
/** A claimed delivery is not claimed again for its request's timeout plus this, unless its outcome is recorded. */
const LEASE_MARGIN_MS = 60_000;

/** `withXactLock` on the webhook worker's dispatch lock, or `key`. */
export async function withWebhookLock<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>, key = WEBHOOK_LOCK): Promise<T | null> {
  return withXactLock(orm, key, work);
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

export interface WebhookWorkerOptions {
  /** How delivery host names are resolved (tests stand in a resolver; the result is still checked). */
  lookup?: LookupFunction;
}

/**
 * Delivers lead events to webhook endpoints from PostgreSQL. Dispatch fans each new `lead_events` row
 * out, newest first, to the enabled endpoints created before it that subscribe to its type and whose
 * owner may see the lead (the lead read scope of the owner's admin), with the lead as its REST show
 * serializes it then. Delivery is the outbox runner's (src/outbox/runner.ts, docs/outbox.md) with one
 * lane per endpoint: at most `ENDPOINT_CONCURRENCY` signed POSTs in flight each, so a slow endpoint only
 * ever delays itself. Any failure is transient (retried with backoff for `retryHours`); an endpoint
 * failing for `disableAfterHours` is disabled.
 */
export class WebhookWorker implements OutboxQueue<Claimed, Outcome> {
  readonly name = 'webhook';
  readonly claimLock = WEBHOOK_CLAIM_LOCK;
  readonly laneConcurrency = ENDPOINT_CONCURRENCY;
  readonly maxInFlight = Infinity;
  readonly claimLimit = CLAIM_LIMIT;
  readonly leaseMs: number;
  readonly retryHours: number;
  private prunedAt = 0;
  private readonly executor: RestExecutor;
  private readonly runner: OutboxRunner<Claimed, Outcome>;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: Config,
    private readonly deps: ContextDeps,
    schema: GraphQLSchema,
    private readonly options: WebhookWorkerOptions = {},
  ) {
    this.executor = new RestExecutor(schema, new OperationRegistry(schema), deps);
    this.leaseMs = config.webhooks.timeoutMs + LEASE_MARGIN_MS;
    this.retryHours = config.webhooks.retryHours;
    this.runner = new OutboxRunner(orm, this, { pollMs: config.webhooks.pollMs });
  }

  start(): void {
    this.runner.start();
  }

  /** Stops taking work and waits for the requests in flight (each ends by its timeout). */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  /** One round that also waits for the requests it started (tests, shutdown); now and then prunes old events. */
  async tick(): Promise<TickResult> {
    const r = await this.runner.tick();
    return { locked: r.locked, dispatched: r.prepared, attempted: r.started };
  }

  /** Runs rounds until nothing is left to dispatch or due (tests, shutdown). */
  drain(maxRounds = 50): Promise<void> {
    return this.runner.drain(maxRounds);
  }

  backoffMs(attempt: number): number {
    return backoffMs(attempt);
  }

  /** Every `PRUNE_INTERVAL_MS`, after a round. */
  async housekeeping(): Promise<void> {
    if (Date.now() - this.prunedAt < PRUNE_INTERVAL_MS) return;
    this.prunedAt = Date.now();
    await this.prune();
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
      const rows = await deleteOldEvents(em, this.config.webhooks.retentionDays, PRUNE_BATCH);
      deleted += rows.length;
      if (rows.length < PRUNE_BATCH) break;
    }
    if (deleted) logger.info({ deleted, retentionDays: this.config.webhooks.retentionDays }, 'webhooks: pruned old lead events');
    return deleted;
  }

  /** Dispatch (the runner's prepare step). */
  prepare(): Promise<number | null> {
    return this.dispatch();
  }

  /** Dispatches batches, newest first, for up to `DISPATCH_BUDGET_MS`; null when another process holds the lock. */
  private async dispatch(): Promise<number | null> {
    const started = Date.now();
    let total = 0;
    for (;;) {
      const batch = await withWebhookLock(this.orm, (em) => this.dispatchBatch(em));
      if (batch === null) return total || null;
      total += batch.dispatched;
      if (!batch.more || Date.now() - started >= DISPATCH_BUDGET_MS) return total;
    }
  }

  /** Dispatches up to `DISPATCH_BATCH` of the newest events, fewer when more than `PAYLOADS_PER_BATCH` have listeners. */
  private async dispatchBatch(em: EntityManager): Promise<{ dispatched: number; more: boolean }> {
    const events = await lockUndispatchedEvents(em, DISPATCH_BATCH);
    if (!events.length) return { dispatched: 0, more: false };
    let eventIds = events.map((e) => e.id);
    // Who may hear of each event: enabled endpoints subscribed to its type that existed when it happened.
    const pairs = await listeningEndpoints(em, eventIds);
    const byOwner = new Map<string, typeof pairs>();
    for (const p of pairs) {
      const key = `${p.owner_company_id ?? ''}/${p.owner_retailer_id ?? ''}`;
      byOwner.set(key, [...(byOwner.get(key) ?? []), p]);
    }
    const kept: ListeningEndpoint[] = [];
    for (const group of byOwner.values()) {
      const { owner_company_id: companyId, owner_retailer_id: retailerId } = group[0];
      const cond = compileScope(leadSearch, leadScope(organisationAdmin({ companyId, retailerId })));
      const visible = new Set(await leadIdsInScope(em, cond, [...new Set(group.map((p) => p.lead_id))]));
      kept.push(...group.filter((p) => visible.has(p.lead_id)));
    }
    // Serializing leads is the costly part: a batch takes the newest events up to PAYLOADS_PER_BATCH heard ones.
    const heardIds = new Set(kept.map((p) => p.event_id));
    let heardCount = 0;
    const cut = eventIds.findIndex((id) => heardIds.has(id) && ++heardCount > PAYLOADS_PER_BATCH);
    if (cut >= 0) {
      eventIds = eventIds.slice(0, cut);
      const taken = new Set(eventIds);
      kept.splice(0, kept.length, ...kept.filter((p) => taken.has(p.event_id)));
    }
    if (kept.length) {
      await insertDeliveries(em, kept);
      const heard = new Set(kept.map((p) => p.event_id));
      const wanted = events.filter((e) => heard.has(e.id));
      // An erased lead's event carries its id only (docs/personal-data.md).
      const leads = await this.leadJsons(wanted.filter((e) => e.type !== 'lead.erased'));
      await storePayloads(em, wanted.map((e) => [e.id, JSON.stringify(e.type === 'lead.erased' ? { id: e.lead_id } : (leads.get(e.lead_id) ?? null))] as const));
    }
    await markDispatched(em, eventIds);
    return { dispatched: eventIds.length, more: cut >= 0 || events.length === DISPATCH_BATCH };
  }

  /**
   * Each event's lead as `GET /v1/leads/:id` serializes it for its owner's admin (absent once it is
   * gone), once per lead: the leads of one owner share a context, their associations batched by its
   * loaders.
   */
  private async leadJsons(events: UndispatchedEvent[]): Promise<Map<string, unknown>> {
    const byOwner = new Map<string, { companyId: string | null; retailerId: string | null; leadIds: Set<string> }>();
    for (const e of events) {
      const key = `${e.owner_company_id ?? ''}/${e.owner_retailer_id ?? ''}`;
      const group = byOwner.get(key) ?? { companyId: e.owner_company_id, retailerId: e.owner_retailer_id, leadIds: new Set<string>() };
      group.leadIds.add(e.lead_id);
      byOwner.set(key, group);
    }
    const leads = new Map<string, unknown>();
    for (const group of byOwner.values()) {
      const em = (this.orm.em as EntityManager).fork();
      const ctx = { em, caller: organisationAdmin(group), loaders: new Loaders(em), config: this.deps.config, search: this.deps.search, geocoder: this.deps.geocoder };
      const ids = [...group.leadIds];
      // A few at once: each lead is a statement of its own, and the pool is the API's too.
      for (let i = 0; i < ids.length; i += PAYLOAD_CONCURRENCY) {
        await Promise.all(
          ids.slice(i, i + PAYLOAD_CONCURRENCY).map((id) =>
            this.executor.run(ctx, 'ShowLead', { id }).then(
              (lead) => leads.set(id, lead),
              () => undefined,
            ),
          ),
        );
      }
    }
    return leads;
  }

  /** Every endpoint's due deliveries up to its free slots, oldest event first, leased for the request's timeout and a margin. */
  async claim(em: EntityManager, request: ClaimRequest): Promise<Claimed[]> {
    const rows = await claimDeliveries(em, {
      busy: request.busy,
      laneConcurrency: request.laneConcurrency,
      limit: request.limit,
      leaseSeconds: request.leaseMs / 1000,
    });
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  /** Records an attempt in the delivery log and the delivery; an endpoint failing for `disableAfterHours` is disabled. */
  async record(row: Claimed, outcome: Outcome, { attempt, giveUp, retryAt }: Verdict): Promise<void> {
    const w = this.config.webhooks;
    await (this.orm.em as EntityManager).fork().transactional(async (em) => {
      await insertAttempt(em, row.id, { attempt, ok: outcome.ok, status: outcome.status, durationMs: outcome.durationMs, error: outcome.error });
      if (outcome.ok) {
        await markDelivered(em, row, attempt, outcome.status);
        return;
      }
      await markFailed(em, row, { attempt, giveUp, retryAt, status: outcome.status, error: outcome.error, disableAfterHours: w.disableAfterHours });
    });
  }

  /** One signed POST (`post`): no redirects followed, a timeout, the response body never read, public addresses only. */
  async deliver(row: Claimed): Promise<Outcome> {
    const w = this.config.webhooks;
    const event = leadEventEnvelope(
      {
        id: row.event_id,
        seq: String(row.seq),
        type: row.type,
        leadId: row.lead_id,
        leadActivityId: row.lead_activity_id,
        ownerCompanyId: row.owner_company_id,
        ownerRetailerId: row.owner_retailer_id,
        occurredAt: toDate(row.occurred_at)!,
        data: row.data,
      },
      row.payload ?? null,
    );
    let body = JSON.stringify(event);
    if (Buffer.byteLength(body) > w.maxBodyBytes) body = JSON.stringify({ ...event, lead: { id: row.lead_id }, truncated: true });
    const started = performance.now();
    try {
      const secret = openSecret(row.secret, w.secretKey);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'leadnet-webhooks/1',
        'Leadnet-Event-Id': row.event_id,
        'Leadnet-Event-Type': row.type,
        'Leadnet-Delivery-Id': row.id,
        'Leadnet-Delivery-Attempt': String(row.attempts + 1),
        [SIGNATURE_HEADER]: signatureHeader(secret, body, Math.floor(Date.now() / 1000)),
      };
      // Traced, the request is a span of the event's trace and carries its `traceparent` (docs/tracing.md).
      const res = await inSpan('POST', { kind: SpanKind.CLIENT, childOnly: true, attributes: { 'http.request.method': 'POST', 'server.address': hostOf(row.url) } }, async (span) => {
        const answer = await post(row.url, body, withTraceHeaders(headers, span), { timeoutMs: w.timeoutMs, allowPrivate: w.allowPrivateUrls, lookup: this.options.lookup });
        span?.setAttribute('http.response.status_code', answer.status);
        return answer;
      });
      const durationMs = Math.round(performance.now() - started);
      const ok = res.status >= 200 && res.status < 300;
      const error = ok ? null : res.status >= 300 && res.status < 400 ? `redirect to ${(res.location ?? '?').slice(0, 300)} not followed` : `HTTP ${res.status}`;
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

/** The host of an endpoint's URL, for its span (never the path or query, which may hold a token). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

interface Outcome extends OutboxOutcome {
  status: number | null;
  durationMs: number;
}

/** A claimed delivery with what its request needs (the endpoint, the event and its serialized lead). */
type Claimed = ClaimedDelivery & OutboxItem;

/** The worker for an app's schema and context dependencies (started by `buildApp` unless WEBHOOK_WORKER=false). */
export function createWebhookWorker(orm: MikroORM, deps: ContextDeps, schema: GraphQLSchema, options: WebhookWorkerOptions = {}): WebhookWorker {
  return new WebhookWorker(orm, deps.config, deps, schema, options);
}
