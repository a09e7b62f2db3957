import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { query } from '../../db/sql';
import { withXactLock } from '../../db/leader';
import { resolveZone, type HourRow } from '../store-locator/store-locator.hours';
import { rerouteLead, routingLockKey, type RoutingChoice } from '../routing/routing.service';
import { addBusinessMinutes } from './business-time';

/** Advisory lock of one step of the response-time worker (transaction-scoped). */
export const RESPONSE_TIME_LOCK = 7_312_040;
/** Held for as long as a process is the one running the response-time worker (src/db/leader.ts). */
export const RESPONSE_TIME_WORKER_LEADER = 7_312_041;
const BATCH = 200;
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
    const timers = await query<any>(
      em,
      `select t.lead_id, t.store_id, coalesce(t.counted_from, t.assigned_at) as counts_from, s.first_response_minutes, coalesce(s.business_hours, true) as business_hours,
              a.retailer_location_id, a.timezone as crl_zone, rl.timezone as rl_zone, loc.latitude, loc.longitude
         from lead_response_timers t
         join company_retailer_locations a on a.id = t.store_id
         left join retailer_locations rl on rl.id = a.retailer_location_id
         left join locations loc on loc.id = coalesce(rl.physical_address_id, a.physical_address_id)
         left join company_response_settings s on s.company_id = a.company_id
        where not t.computed order by t.assigned_at limit ? for update of t skip locked`,
      [BATCH],
    );
    for (const t of timers) {
      let due: Date | null = null;
      if (t.first_response_minutes) {
        const start = new Date(t.counts_from);
        if (!t.business_hours) due = new Date(start.getTime() + t.first_response_minutes * 60_000);
        else {
          const hours = await query<HourRow>(
            em,
            `select day, open, open_at_hour, open_at_minute, close_at_hour, close_at_minute from hours
              where (?::uuid is not null and retailer_location_id = ?::uuid) or (?::uuid is null and company_retailer_location_id = ?::uuid)`,
            [t.retailer_location_id, t.retailer_location_id, t.retailer_location_id, t.store_id],
          );
          const point = t.latitude === null || t.longitude === null ? null : { latitude: Number(t.latitude), longitude: Number(t.longitude) };
          due = addBusinessMinutes(start, t.first_response_minutes, hours, resolveZone([t.crl_zone, t.rl_zone], point));
        }
      }
      await query(em, `update lead_response_timers set computed = true, due_at = ? where lead_id = ?`, [due, t.lead_id]);
    }
    return timers.length;
  }

  private async breach(em: EntityManager): Promise<number> {
    const now = this.clock();
    // The lead is locked with its timer (skip locked: the worker never waits for a writer, so it can take no
    // part in a deadlock); a lead whose store changed meanwhile has a restarted timer and is not here.
    const due = await query<any>(
      em,
      `select t.lead_id, t.store_id, t.assigned_at, t.due_at, s.first_response_minutes, coalesce(s.reassign, false) as reassign, a.company_id
         from lead_response_timers t
         join leads l on l.id = t.lead_id and l.assignee_id = t.store_id
         join company_retailer_locations a on a.id = t.store_id
         left join company_response_settings s on s.company_id = a.company_id
        where t.due_at <= ? and t.answered_at is null and t.breached_at is null and s.first_response_minutes is not null
        order by t.due_at limit ? for update of t, l skip locked`,
      [now, BATCH],
    );
    for (const t of due) {
      if (t.reassign) {
        // Routing's round-robin lock, without waiting (the worker holds lead locks): a create taking its
        // turn now leaves this breach to the next round.
        const [{ locked }] = await query<{ locked: boolean }>(em, `select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [
          routingLockKey(t.company_id),
        ]);
        if (!locked) continue;
      }
      await query(em, `update lead_response_timers set breached_at = ? where lead_id = ?`, [now, t.lead_id]);
      const next = t.reassign ? await rerouteLead(em, t.company_id, t.lead_id, await this.storesHad(em, t.lead_id, t.store_id)) : null;
      const data = {
        store_id: t.store_id,
        assigned_at: new Date(t.assigned_at).toISOString(),
        due_at: new Date(t.due_at).toISOString(),
        first_response_minutes: t.first_response_minutes,
        // What happened to the lead: `off` (the company does not reassign), `reassigned`, or `no_eligible_store` (it stays).
        reassignment: !t.reassign ? 'off' : next ? 'reassigned' : 'no_eligible_store',
        reassigned_to_id: next?.crlId ?? null,
      };
      // The breach is recorded before the reassignment it causes, so the outbox tells them in that order.
      await query(
        em,
        `insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, occurred_at, data)
         select 'lead.sla_breached', l.id, l.owner_company_id, l.owner_retailer_id, ?, ?::jsonb from leads l where l.id = ?`,
        [now, JSON.stringify(data), t.lead_id],
      );
      if (next) await this.reassign(em, t.lead_id, t.store_id, next);
    }
    return due.length;
  }

  /** Every store the lead was assigned to (its timeline's assignments, the outbox's, and the one it is at). */
  private async storesHad(em: EntityManager, leadId: string, current: string): Promise<string[]> {
    const rows = await query<{ id: string }>(
      em,
      `select distinct id from (
         select la.data->>'from_id' as id from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select la.data->>'to_id' from lead_activities la where la.lead_id = ? and la.type = 'LeadActivity::Assignment'
         union all select e.data->>'to_id' from lead_events e where e.lead_id = ? and e.type = 'lead.assigned') s
        where id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
      [leadId, leadId, leadId],
    );
    return [...new Set([current, ...rows.map((r) => r.id)])];
  }

  /**
   * The lead to the store routing chose, recorded as an `Assignment` activity with the reason, the rule and
   * the distance; the assignment is an ordinary one (a `lead.assigned` event, mails, a new timer there).
   */
  private async reassign(em: EntityManager, leadId: string, fromId: string, next: RoutingChoice): Promise<void> {
    await query(em, `update leads set assignee_id = ?, updated_at = now() where id = ?`, [next.crlId, leadId]);
    await query(em, `insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Assignment', ?::jsonb)`, [
      leadId,
      JSON.stringify({ from_id: fromId, to_id: next.crlId, reason: 'sla_breached', rule: next.rule, distance_miles: next.distanceMiles }),
    ]);
  }
}
