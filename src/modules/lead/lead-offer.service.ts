import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { about, authorize, can } from '../../access/policy';
import { conflict, detail, Validator } from '../../errors';
import { recordActor, transactional } from '../../db/write';
import { rerouteLead, type RoutingChoice } from '../routing/routing.service';
import { leadPolicy, type OfferStore } from './lead.policy';
import { LeadService } from './lead.service';
import type { LeadRow } from './lead.repository';
import {
  closeOffer,
  escalate,
  handLeadTo,
  latestOffers,
  lockOffers,
  maxHandovers,
  offerRow,
  recordOfferActivity,
  recordOfferEvent,
  storesHad,
  type OfferWithStore,
} from './lead-offer.repository';
import { DECLINE_REASONS, leadOfferOf, type DeclineReasonValue, type LeadOffer } from './lead-offer.types';

/** The longest decline note. */
export const MAX_DECLINE_NOTE = 500;

/** Why a lead that could not be handed over stays where it is (docs/lead-loop.md, "Escalation"). */
export type Escalation = 'max_handovers' | 'no_eligible_store';

/** Where a declined or lapsed offer's lead goes: the next store, or nowhere (escalated). */
export interface Handover {
  next: RoutingChoice | null;
  escalation: Escalation | null;
}

/** The offer's store as the lead policy reads it. */
const storeOf = (o: OfferWithStore): OfferStore => ({ id: o.store_id, retailerLocationId: o.retailer_location_id, retailerId: o.retailer_id });

/**
 * Where the lead of a closed offer goes next (docs/lead-loop.md): after the company's `max_handovers`
 * hand-overs nowhere; else the store the company's routing rules choose among those it never had (every
 * store it was offered or assigned to is excluded, the ones that declined or let it lapse too); none: nowhere.
 */
export async function nextStore(tx: EntityManager, leadId: string, offer: { company_id: string; handovers: number }): Promise<Handover> {
  if (offer.handovers >= (await maxHandovers(tx, offer.company_id))) return { next: null, escalation: 'max_handovers' };
  const next = await rerouteLead(tx, offer.company_id, leadId, await storesHad(tx, leadId));
  return next ? { next, escalation: null } : { next: null, escalation: 'no_eligible_store' };
}

/** The lead to the chosen store, with an `Assignment` activity giving the reason (`declined` or `offer_expired`). */
export async function handOver(tx: EntityManager, leadId: string, fromId: string, next: RoutingChoice, reason: 'declined' | 'offer_expired'): Promise<void> {
  await handLeadTo(tx, leadId, next.crlId, { from_id: fromId, to_id: next.crlId, reason, rule: next.rule, distance_miles: next.distanceMiles });
}

/** A decline's reason and note as checked: 422 on an unknown reason, a missing note for `other`, a note over 500 characters. */
export function checkDecline(reason: unknown, note: unknown): { reason: DeclineReasonValue; note: string | null } {
  const v = new Validator();
  if (reason === undefined || reason === null || reason === '') v.add('reason', 'blank');
  else if (typeof reason !== 'string' || !(DECLINE_REASONS as readonly string[]).includes(reason)) v.add('reason', 'inclusion', `is not one of ${DECLINE_REASONS.join(', ')}`);
  const text = typeof note === 'string' ? note.trim() : note;
  if (text !== undefined && text !== null && typeof text !== 'string') v.add('note', 'invalid');
  else if (typeof text === 'string' && text.length > MAX_DECLINE_NOTE) v.add('note', 'too_long', `is too long (maximum is ${MAX_DECLINE_NOTE} characters)`);
  else if (reason === 'other' && !text) v.add('note', 'blank', "can't be blank when the reason is other");
  v.throwIfAny();
  return { reason: reason as DeclineReasonValue, note: typeof text === 'string' && text ? text : null };
}

/**
 * Accepting and declining offers (docs/lead-loop.md). The lead must be visible to the caller (404); the
 * caller must answer for a store the lead was offered to (the lead policy's `answerOffer`: 403); that
 * store's offer must be the open one (409). The lead and its open offer are row-locked, so of two answers
 * at once one wins and the other reads the answered offer (409).
 */
export class LeadOfferService {
  constructor(private readonly ctx: Context) {}

  /** The caller's store accepts the lead; the first-response timer is answered (the activity, by the store's user). */
  accept(leadId: string): Promise<LeadRow> {
    return this.answer(leadId, async (tx, offer, userId) => {
      const data = { offer_id: offer.id, store_id: offer.store_id, user_id: userId };
      await closeOffer(tx, offer.id, 'accepted', userId, null);
      await recordOfferEvent(tx, 'lead.accepted', leadId, null, data);
      await recordOfferActivity(tx, leadId, 'LeadActivity::OfferAccepted', data, offer.store_id);
    });
  }

  /** The caller's store declines the lead: it is handed to the next store, or escalated. */
  decline(leadId: string, reason: unknown, note: unknown): Promise<LeadRow> {
    const checked = checkDecline(reason, note);
    return this.answer(leadId, async (tx, offer, userId) => {
      await closeOffer(tx, offer.id, 'declined', userId, null, checked);
      const { next, escalation } = await nextStore(tx, leadId, offer);
      const data = { offer_id: offer.id, store_id: offer.store_id, reason: checked.reason, note: checked.note, next_store_id: next?.crlId ?? null, escalation };
      await recordOfferEvent(tx, 'lead.declined', leadId, null, { ...data, user_id: userId });
      await recordOfferActivity(tx, leadId, 'LeadActivity::OfferDeclined', { ...data, user_id: userId }, offer.store_id);
      if (next) await handOver(tx, leadId, offer.store_id, next, 'declined');
      else if (escalation) await escalate(tx, leadId, offer.id, escalation, null);
    });
  }

  private async answer(leadId: string, write: (tx: EntityManager, offer: OfferWithStore, userId: string) => Promise<void>): Promise<LeadRow> {
    const leads = new LeadService(this.ctx);
    const before = await leads.get(leadId);
    const caller = this.ctx.caller!;
    const closed = await transactional(
      this.ctx.em,
      async (tx) => {
        await recordActor(tx, caller.userId);
        const offers = await lockOffers(tx, before.id);
        const answerable = offers.filter((o) => can(caller, 'answerOffer', about(leadPolicy, { offerStore: storeOf(o) })));
        // None of the lead's stores is the caller's: 403 (asked of the latest offer, or of none).
        if (!answerable.length) authorize(caller, 'answerOffer', about(leadPolicy, { offerStore: offers[0] && storeOf(offers[0]) }));
        const offer = answerable[0];
        if (offer.state !== 'open') throw notOpen(offer);
        await write(tx, offer, caller.userId);
        return offerRow(tx, offer.id);
      },
      {},
      { rerun: true },
    );
    const now = await leads.get(before.id).catch(() => null);
    if (now) return now;
    // Handed over, the declining store no longer sees the lead: it is answered as that store saw it, with its own offer.
    if (closed) offerLoader(this.ctx).clear(before.id).prime(before.id, leadOfferOf(closed));
    return before;
  }
}

/** 409: the caller's store's offer is not open (answered, lapsed or withdrawn). */
function notOpen(offer: OfferWithStore) {
  const what = { accepted: 'was already accepted', declined: 'was already declined', expired: 'has expired', withdrawn: 'was withdrawn (the lead was assigned elsewhere)', open: 'is open' }[offer.state];
  return conflict(`The offer of this lead to your store ${what}`, [detail('offer', offer.state, what)]);
}

/** The open or latest offer of leads, one statement per request's batch (`Lead.offer`). */
export function offerLoader(ctx: Context) {
  return ctx.loaders.custom<string, LeadOffer | null>('lead.offers', async (ids) => (await latestOffers(ctx, ids)).map((r) => r && leadOfferOf(r)));
}

