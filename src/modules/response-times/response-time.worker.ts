import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { withXactLock } from '../../db/leader';
import { resolveZone } from '../store-locator/store-locator.hours';
import { rerouteLead, routingLockKey, type RoutingChoice } from '../routing/routing.service';
import { addBusinessMinutes } from './business-time';
import {
  assignedStoreIds,
  lockDueTimers,
  lockUncomputedTimers,
  markBreached,
  reassignLead,
  recordBreachEvent,
  setDueAt,
  storeHours,
  tryNamedLock,
} from './response-time.repository';

/** Advisory lock of one step of the response-time worker (transaction-scoped). */
export const RESPONSE_TIME_LOCK = 7_312_040;
/** Held for as long as a process is the one running the response-time worker (src/db/leader.ts). */
export const RESPONSE_TIME_WORKER_LEADER = 7_312_041;
const BATCH = 200;
/** The share of the first-response time after which the store's staff are reminded of an unanswered lead. */
export const REMIND_AT_SHARE = 0.75;
const POLL_MS = 5_000;

export interface ResponseTimeWorkerOptions {
  /** The time the worker acts at (tests move it across weekends and DST changes). */
  clock?: () => Date;
  pollMs?: number;
}

/**
 * First-response timers (docs/response-times.md). The timers themselves are kept by a trigger on the
 * lead events outbox (an assignment restarts one, an answer stops it), so they survive restarts and need
 * no process to be running. This worker, run by one process at a time (leader lock), gives each new timer
 * its due time from the company's first-response time and the store's opening hours in its zone, and
 * when a due time passes unanswered it records the breach: a `lead.sla_breached` event (webhooks,
 * subscriptions and e-mail notifications all read the outbox) and, when the company chose it, the lead
 * reassigned by the company's routing rules to a store it never had, with an `Assignment` activity saying why.
 */
export class ResponseTimeWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly clock: () => Date;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: ResponseTimeWorkerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => logger.error({ err }, 'response-time worker round failed'))
        .finally(() => (this.running = null));
    }, this.options.pollMs ?? POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: due times for new timers, then breaches. Null counts when another process holds the lock. */
  async tick(): Promise<{ computed: number; breached: number }> {
    let computed = 0;
    let breached = 0;
    for (;;) {
      const n = await this.locked((em) => this.computeDueTimes(em));
      computed += n ?? 0;
      if (!n || n < BATCH) break;
    }
    for (;;) {
      const n = await this.locked((em) => this.breach(em));
      breached += n ?? 0;
      if (!n || n < BATCH) break;
    }
    return { computed, breached };
  }

  private locked<T>(work: (em: EntityManager) => Promise<T>): Promise<T | null> {
    return withXactLock(this.orm, RESPONSE_TIME_LOCK, work);
  }

  private async computeDueTimes(em: EntityManager): Promise<number> {
    const timers = await lockUncomputedTimers(em, BATCH);
    for (const t of timers) {
      let due: Date | null = null;
      let remind: Date | null = null;
      if (t.first_response_minutes) {
        const start = new Date(t.counts_from);
        // The reminder (docs/notifications.md "Reminders"): at REMIND_AT_SHARE of the time, counted the same way.
        const early = Math.floor(t.first_response_minutes * REMIND_AT_SHARE);
        if (!t.business_hours) {
          due = new Date(start.getTime() + t.first_response_minutes * 60_000);
          remind = new Date(start.getTime() + early * 60_000);
        } else {
          const hours = await storeHours(em, t.retailer_location_id, t.store_id);
          const point = t.latitude === null || t.longitude === null ? null : { latitude: Number(t.latitude), longitude: Number(t.longitude) };
          const zone = resolveZone([t.crl_zone, t.rl_zone], point);
          due = addBusinessMinutes(start, t.first_response_minutes, hours, zone);
          remind = early > 0 ? addBusinessMinutes(start, early, hours, zone) : null;
        }
        if (early <= 0) remind = null;
      }
      await setDueAt(em, t.lead_id, due, remind);
    }
    return timers.length;
  }

  private async breach(em: EntityManager): Promise<number> {
    const now = this.clock();
    // The lead is locked with its timer (skip locked: the worker never waits for a writer, so it can take no
    // part in a deadlock); a lead whose store changed meanwhile has a restarted timer and is not here.
    const due = await lockDueTimers(em, now, BATCH);
    for (const t of due) {
      // An escalated lead waits at its store for its territory manager (or company admin): a breach is
      // recorded, but never moves it past the company's hand-overs.
      const reassign = t.reassign && !t.escalated;
      if (reassign) {
        // Routing's round-robin lock, without waiting (the worker holds lead locks): a create taking its
        // turn now leaves this breach to the next round.
        if (!(await tryNamedLock(em, routingLockKey(t.company_id)))) continue;
      }
      await markBreached(em, t.lead_id, now);
      const next = reassign ? await rerouteLead(em, t.company_id, t.lead_id, await this.storesHad(em, t.lead_id, t.store_id)) : null;
      const data = {
        store_id: t.store_id,
        assigned_at: new Date(t.assigned_at).toISOString(),
        due_at: new Date(t.due_at).toISOString(),
        first_response_minutes: t.first_response_minutes,
        // What happened to the lead: `off` (the company does not reassign), `escalated` (it waits for a person),
        // `reassigned`, or `no_eligible_store` (it stays).
        reassignment: !t.reassign ? 'off' : t.escalated ? 'escalated' : next ? 'reassigned' : 'no_eligible_store',
        reassigned_to_id: next?.crlId ?? null,
      };
      // The breach is recorded before the reassignment it causes, so the outbox tells them in that order.
      await recordBreachEvent(em, t.lead_id, now, data);
      if (next) await this.reassign(em, t.lead_id, t.store_id, next);
    }
    return due.length;
  }

  /** Every store the lead was assigned to (its timeline's assignments, the outbox's, and the one it is at). */
  private async storesHad(em: EntityManager, leadId: string, current: string): Promise<string[]> {
    return [...new Set([current, ...(await assignedStoreIds(em, leadId))])];
  }

  /**
   * The lead to the store routing chose, recorded as an `Assignment` activity with the reason, the rule and
   * the distance; the assignment is an ordinary one (a `lead.assigned` event, mails, a new timer there).
   */
  private async reassign(em: EntityManager, leadId: string, fromId: string, next: RoutingChoice): Promise<void> {
    await reassignLead(em, leadId, next.crlId, { from_id: fromId, to_id: next.crlId, reason: 'sla_breached', rule: next.rule, distance_miles: next.distanceMiles });
  }
}
