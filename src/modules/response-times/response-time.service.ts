import type { Context } from '../../context';
import { Validator } from '../../errors';
import { authorize } from '../../access/policy';
import { responseTimePolicy } from './response-time.policy';
import { ResponseTimeSettings, type ResponseTimeSettingsInput } from './response-time.types';
import { RESPONSE_TIME_LOCK } from './response-time.worker';
import { lockResponseTimes, responseSettingsRow, restartTimers, saveResponseSettings } from './response-time.repository';
import { restartOffers } from '../lead/lead-offer.repository';
import { LEAD_OFFER_LOCK } from './offer-lapse.worker';
import { audit, changes } from '../audit/audit.service';

/** A company admin reads and changes its company's first-response time; any other role is 403. */
export class ResponseTimeService {
  constructor(private readonly ctx: Context) {}

  private companyId(): string {
    const c = this.ctx.caller!;
    authorize(c, 'configure', responseTimePolicy);
    return c.companyId!;
  }

  async get(): Promise<ResponseTimeSettings> {
    const companyId = this.companyId();
    const row = await responseSettingsRow(this.ctx.em, companyId);
    return {
      companyId,
      firstResponseMinutes: row?.first_response_minutes ?? null,
      businessHours: row?.business_hours ?? true,
      reassign: row?.reassign ?? false,
      acceptMinutes: row?.accept_minutes ?? null,
      maxHandovers: row?.max_handovers ?? 3,
    };
  }

  async update(input: ResponseTimeSettingsInput): Promise<ResponseTimeSettings> {
    const companyId = this.companyId();
    const v = new Validator();
    const m = input.firstResponseMinutes;
    if (m !== undefined && m !== null && !(Number.isInteger(m) && m >= 1 && m <= 525_600)) v.add('first_response_minutes', 'invalid', 'must be 1 to 525600 minutes');
    if (input.businessHours === null) v.add('business_hours', 'invalid', 'must be true or false');
    if (input.reassign === null) v.add('reassign', 'invalid', 'must be true or false');
    const a = input.acceptMinutes;
    if (a !== undefined && a !== null && !(Number.isInteger(a) && a >= 1 && a <= 525_600)) v.add('accept_minutes', 'invalid', 'must be 1 to 525600 minutes');
    const h = input.maxHandovers;
    if (h === null || (h !== undefined && !(Number.isInteger(h) && h >= 0 && h <= 100))) v.add('max_handovers', 'invalid', 'must be 0 to 100');
    v.throwIfAny();
    const current = await this.get();
    const next = {
      firstResponseMinutes: m === undefined ? current.firstResponseMinutes : m,
      businessHours: input.businessHours ?? current.businessHours,
      reassign: input.reassign ?? current.reassign,
      acceptMinutes: a === undefined ? current.acceptMinutes : a,
      maxHandovers: h ?? current.maxHandovers,
    };
    const clockChanged = next.firstResponseMinutes !== current.firstResponseMinutes || next.businessHours !== current.businessHours;
    const windowChanged = next.acceptMinutes !== current.acceptMinutes || (next.acceptMinutes !== null && next.businessHours !== current.businessHours);
    await this.ctx.em.transactional(async (em) => {
      // One step at a time with the response-time worker: none of its rounds reads the settings or the
      // timers half-way through this change (it skips its round while this holds the lock).
      await lockResponseTimes(em, RESPONSE_TIME_LOCK);
      await saveResponseSettings(em, companyId, next);
      if (clockChanged) await restartTimers(em, companyId, next.firstResponseMinutes !== null);
      // Open offers count a new acceptance window from the change (docs/lead-loop.md), one step at a time with the offer worker.
      if (windowChanged) {
        await lockResponseTimes(em, LEAD_OFFER_LOCK);
        await restartOffers(em, companyId, next.acceptMinutes !== null);
      }
      const changed = changes({ ...current }, { companyId, ...next }, ['firstResponseMinutes', 'businessHours', 'reassign', 'acceptMinutes', 'maxHandovers']);
      if (Object.keys(changed).length) await audit.record(em, this.ctx.caller, 'settings.response_times_changed', { type: 'company', id: companyId, companyId }, changed);
    });
    return { companyId, ...next };
  }
}
