import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../../logger';
import { withXactLock } from '../../db/leader';
import { resolveZone } from '../store-locator/store-locator.hours';
import { routingLockKey } from '../routing/routing.service';
import { addBusinessMinutes } from './business-time';
import { storeHours } from './response-time.repository';
import { closeOffer, escalate, lockLapsedOffers, lockUncomputedOffers, recordOfferActivity, recordOfferEvent, setRespondBy, tryNamedLock } from '../lead/lead-offer.repository';
import { handOver, nextStore } from '../lead/lead-offer.service';

/** Advisory lock of one step of the offer worker (transaction-scoped). */
export const LEAD_OFFER_LOCK = 7_312_050;
/** Held for as long as a process is the one running the offer worker (src/db/leader.ts). */
export const LEAD_OFFER_WORKER_LEADER = 7_312_051;
const BATCH = 200;
const POLL_MS = 5_000;

export interface LeadOfferWorkerOptions {
  /** The time the worker acts at (tests move it). */
  clock?: () => Date;
  pollMs?: number;
}

/**
 * Offers that lapse (docs/lead-loop.md), a part of the response-time settings (`acceptMinutes`, counted as
 * first-response due times are): without this module offers are answered but never lapse. The offers are kept by a trigger on the lead events outbox; this
 * worker, run by one process at a time (leader lock), gives each open offer its respond-by time (the
 * company's `accept_minutes` counted in the store's opening hours in its zone, as first-response due
 * times are) and expires the open offers past it: the offer `expired`, a `lead.offer_expired` event, an
 * `OfferExpired` activity, and the lead handed to the next store by the company's routing rules (or escalated).
 */
export class LeadOfferWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private readonly clock: () => Date;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: LeadOfferWorkerOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.tick()
        .catch((err) => logger.error({ err }, 'lead offer worker round failed'))
        .finally(() => (this.running = null));
    }, this.options.pollMs ?? POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: respond-by times for new offers, then lapses. */
  async tick(): Promise<{ computed: number; expired: number }> {
    let computed = 0;
    let expired = 0;
    for (;;) {
      const n = await this.locked((em) => this.computeRespondBy(em));
      computed += n ?? 0;
      if (!n || n < BATCH) break;
    }
    for (;;) {
      const n = await this.locked((em) => this.expire(em));
      expired += n ?? 0;
      if (!n || n < BATCH) break;
    }
    return { computed, expired };
  }

  private locked<T>(work: (em: EntityManager) => Promise<T>): Promise<T | null> {
    return withXactLock(this.orm, LEAD_OFFER_LOCK, work);
  }

  private async computeRespondBy(em: EntityManager): Promise<number> {
    const open = await lockUncomputedOffers(em, BATCH);
    for (const o of open) {
      let by: Date | null = null;
      if (o.accept_minutes) {
        const start = new Date(o.counts_from);
        if (!o.business_hours) by = new Date(start.getTime() + o.accept_minutes * 60_000);
        else {
          const hours = await storeHours(em, o.retailer_location_id, o.store_id);
          const point = o.latitude === null || o.longitude === null ? null : { latitude: Number(o.latitude), longitude: Number(o.longitude) };
          by = addBusinessMinutes(start, o.accept_minutes, hours, resolveZone([o.crl_zone, o.rl_zone], point));
        }
      }
      await setRespondBy(em, o.id, by);
    }
    return open.length;
  }

  private async expire(em: EntityManager): Promise<number> {
    const now = this.clock();
    // The offer is locked with its lead (skip locked: the worker never waits for a writer); an answer or a
    // reassignment meanwhile closed it, and it is not here.
    const lapsed = await lockLapsedOffers(em, now, BATCH);
    let done = 0;
    for (const o of lapsed) {
      // Routing's round-robin lock without waiting (the worker holds lead locks): a create taking its turn
      // now leaves this lapse to the next round.
      if (!(await tryNamedLock(em, routingLockKey(o.company_id)))) continue;
      await closeOffer(em, o.id, 'expired', null, now);
      const { next, escalation } = await nextStore(em, o.lead_id, o);
      const data = {
        offer_id: o.id,
        store_id: o.store_id,
        respond_by: new Date(o.respond_by).toISOString(),
        next_store_id: next?.crlId ?? null,
        escalation,
      };
      await recordOfferEvent(em, 'lead.offer_expired', o.lead_id, now, data);
      await recordOfferActivity(em, o.lead_id, 'LeadActivity::OfferExpired', data, o.store_id);
      if (next) await handOver(em, o.lead_id, o.store_id, next, 'offer_expired');
      else if (escalation) await escalate(em, o.lead_id, o.id, escalation, now);
      done++;
    }
    return lapsed.length === BATCH ? lapsed.length : done;
  }
}
