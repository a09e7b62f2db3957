import type { Context } from '../../context';
import { notFound, Validator } from '../../errors';
import { about, authorize } from '../../access/policy';
import { recordActor, transactional } from '../../db/write';
import { Loaders } from '../../db/loaders';
import { LeadService } from '../lead/lead.service';
import type { LeadRow } from '../lead/lead.repository';
import { leadOutcomePolicy } from './lead-outcome.policy';
import { changeStatus, lockedLead, saveOutcome, type OutcomeWrite } from './lead-outcome.repository';
import { LeadOutcomeResult, type LeadOutcomeInput } from './lead-outcome.types';

const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
const MAX_LOST_REASON = 500;
const STATUS: Record<LeadOutcomeResult, string> = { [LeadOutcomeResult.WON]: 'Won', [LeadOutcomeResult.LOST]: 'Lost' };

/** `2026-02-30` is not a day: the string must be the ISO form of a real date. */
function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

/** The input checked (422 on each bad attribute, in the REST names). */
export function checkOutcome(input: LeadOutcomeInput, recordedById: string | null, today = new Date()): OutcomeWrite {
  const v = new Validator();
  const result = input.result;
  if (result === undefined || result === null) v.add('result', 'blank');
  else if (result !== LeadOutcomeResult.WON && result !== LeadOutcomeResult.LOST) v.add('result', 'inclusion');
  const amount = input.amountMinor ?? null;
  if (amount !== null && (!Number.isSafeInteger(amount) || amount < 0)) v.add('amount_minor', 'invalid', 'must be an integer of minor units, 0 or more');
  const currency = input.currency === undefined || input.currency === null || input.currency.trim() === '' ? null : input.currency.trim().toUpperCase();
  if (currency !== null && !CURRENCIES.has(currency)) v.add('currency', 'inclusion', 'is not an ISO 4217 currency code');
  if (amount !== null && currency === null) v.add('currency', 'blank', "can't be blank with an amount");
  const lostReason = input.lostReason === undefined || input.lostReason === null || input.lostReason.trim() === '' ? null : input.lostReason.trim();
  if (lostReason !== null && lostReason.length > MAX_LOST_REASON) v.add('lost_reason', 'too_long', `is too long (maximum is ${MAX_LOST_REASON} characters)`);
  const closedOn = input.closedOn === undefined || input.closedOn === null ? today.toISOString().slice(0, 10) : input.closedOn;
  if (!isDay(closedOn)) v.add('closed_on', 'invalid', 'must be a date, YYYY-MM-DD');
  v.throwIfAny();
  return { result: result as 'won' | 'lost', amountMinor: amount, currency, lostReason, closedOn, recordedById };
}

/**
 * Outcomes (docs/lead-loop.md "Outcomes"): the users of the lead's store (and their API keys) and the
 * admins of its owner record `won` or `lost`; the lead's status follows (a normal status change), the
 * timeline gets a `LeadActivity::Outcome` and the outbox a `lead.outcome_recorded`. Recording again
 * replaces the outcome.
 */
export class LeadOutcomeService {
  constructor(private readonly ctx: Context) {}

  async record(id: string, input: LeadOutcomeInput): Promise<LeadRow> {
    const leads = new LeadService(this.ctx);
    await leads.get(id); // 404 outside the caller's scope
    const caller = this.ctx.caller!;
    await transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, caller.userId);
      const lead = await lockedLead(tx, id);
      if (!lead) throw notFound('Lead', id); // destroyed since the scope check
      authorize(caller, 'record', about(leadOutcomePolicy, lead));
      const outcome = checkOutcome(input, caller.userId);
      const status = STATUS[outcome.result === 'won' ? LeadOutcomeResult.WON : LeadOutcomeResult.LOST];
      if (lead.status.toLowerCase() !== status.toLowerCase()) await changeStatus(tx, id, lead.status, status);
      await saveOutcome(tx, id, outcome);
    }, {}, { rerun: true });
    this.ctx.em.clear();
    this.ctx.loaders = new Loaders(this.ctx.em);
    return leads.get(id);
  }
}
