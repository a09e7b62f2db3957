import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { query } from '../../db/sql';
import { Validator } from '../../errors';
import { authorize } from '../../access/policy';
import { responseTimePolicy } from './response-time.policy';
import { ResponseTimeSettings, type ResponseTimeSettingsInput } from './response-time.types';
import { RESPONSE_TIME_LOCK } from './response-time.worker';

/** Activities that are not the store answering: the assignment itself, the customer's request, a merge's note. */
const NOT_AN_ANSWER = `la.type in ('LeadActivity::Assignment', 'LeadActivity::QuoteRequest') or (la.type = 'LeadActivity::Note' and la.data->'merge' is not null)`;

/**
 * A company set or changed its first-response time (docs/response-times.md, "Setting or changing the
 * time"): every lead of its stores still waiting for a first answer gets the new time counted from now.
 * Waiting timers start again from now; open, assigned, unanswered leads with no timer (assigned before
 * the company had one, or while it was off) get one, with their real assignment time kept for the
 * statistics. Turning timers off stops the waiting ones. Answered and breached timers are history and
 * stay as they are. Set-based, in the settings' transaction.
 */
async function restartTimers(em: Pick<EntityManager, 'execute'>, companyId: string, on: boolean): Promise<void> {
  await query(
    em as EntityManager,
    `update lead_response_timers t set counted_from = now(), computed = ?, due_at = null
       from company_retailer_locations a
      where a.id = t.store_id and a.company_id = ? and t.answered_at is null and t.breached_at is null
        and exists (select 1 from leads l where l.id = t.lead_id and lower(l.status) not in ('won', 'lost'))`,
    [!on, companyId],
  );
  if (!on) return;
  await query(
    em as EntityManager,
    `insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at, counted_from)
     select l.id, l.assignee_id, w.at, w.at, now()
       from leads l
       join company_retailer_locations a on a.id = l.assignee_id
       cross join lateral (
         select coalesce(greatest(
                  (select max(la.created_at) from lead_activities la
                    where la.lead_id = l.id and la.type = 'LeadActivity::Assignment' and la.data->>'to_id' = l.assignee_id::text),
                  (select max(e.occurred_at) from lead_events e
                    where e.lead_id = l.id and e.type = 'lead.assigned' and e.data->>'to_id' = l.assignee_id::text)),
                l.created_at) as at) w
      where a.company_id = ? and lower(l.status) not in ('won', 'lost')
        and not exists (select 1 from lead_response_timers t where t.lead_id = l.id)
        -- Activities stamped by the writing process may trail the transaction's time by a little: those of the
        -- assignment's own write (a create's notes) are not an answer.
        and not exists (select 1 from lead_activities la where la.lead_id = l.id and la.created_at > w.at + interval '1 second' and not (${NOT_AN_ANSWER}))
     on conflict (lead_id) do nothing`,
    [companyId],
  );
}

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
    const [row] = await query<any>(this.ctx.em, `select * from company_response_settings where company_id = ?`, [companyId]);
    return {
      companyId,
      firstResponseMinutes: row?.first_response_minutes ?? null,
      businessHours: row?.business_hours ?? true,
      reassign: row?.reassign ?? false,
    };
  }

  async update(input: ResponseTimeSettingsInput): Promise<ResponseTimeSettings> {
    const companyId = this.companyId();
    const v = new Validator();
    const m = input.firstResponseMinutes;
    if (m !== undefined && m !== null && !(Number.isInteger(m) && m >= 1 && m <= 525_600)) v.add('first_response_minutes', 'invalid', 'must be 1 to 525600 minutes');
    if (input.businessHours === null) v.add('business_hours', 'invalid', 'must be true or false');
    if (input.reassign === null) v.add('reassign', 'invalid', 'must be true or false');
    v.throwIfAny();
    const current = await this.get();
    const next = {
      firstResponseMinutes: m === undefined ? current.firstResponseMinutes : m,
      businessHours: input.businessHours ?? current.businessHours,
      reassign: input.reassign ?? current.reassign,
    };
    const clockChanged = next.firstResponseMinutes !== current.firstResponseMinutes || next.businessHours !== current.businessHours;
    await this.ctx.em.transactional(async (em) => {
      // One step at a time with the response-time worker: none of its rounds reads the settings or the
      // timers half-way through this change (it skips its round while this holds the lock).
      await query(em, 'select pg_advisory_xact_lock(?)', [RESPONSE_TIME_LOCK]);
      await query(
        em,
        `insert into company_response_settings (company_id, first_response_minutes, business_hours, reassign) values (?, ?, ?, ?)
         on conflict (company_id) do update set first_response_minutes = excluded.first_response_minutes, business_hours = excluded.business_hours,
           reassign = excluded.reassign, updated_at = now()`,
        [companyId, next.firstResponseMinutes, next.businessHours, next.reassign],
      );
      if (clockChanged) await restartTimers(em, companyId, next.firstResponseMinutes !== null);
    });
    return { companyId, ...next };
  }
}
