import { Migration } from '@mikro-orm/migrations';
import { ANSWERED_BY_THE_STORE } from './Migration20261127130000_response_stats';

const ANSWERS = `n.type = 'lead.status_changed'
                    or (n.type = 'lead_activity.created' and coalesce(n.data->>'activity_type', '') not in ('LeadActivity::Assignment', 'LeadActivity::StatusChange'))`;

/**
 * First-response timers that start from a settings change (docs/response-times.md): `counted_from` is
 * the instant a timer's due time counts from when it is not its assignment (a company setting or
 * changing its first-response time starts the clocks of waiting leads from the change; the assignment
 * time stays, for the statistics). A new assignment clears it. A duplicate submission merged into a lead
 * is not the store answering: the answer its activities recorded in the merge's transaction is undone
 * by the `lead.merged` event of that transaction. Answers count only from the store's users
 * (`ANSWERED_BY_THE_STORE`, Migration20261127130000_response_stats).
 */
export class Migration20261127140000_response_timer_restarts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "lead_response_timers" add column "counted_from" timestamptz null;`);
    this.addSql(this.timers(true));
  }

  override async down(): Promise<void> {
    this.addSql(this.timers(false));
    this.addSql(`alter table "lead_response_timers" drop column if exists "counted_from";`);
  }

  private timers(withRestarts: boolean): string {
    return `create or replace function leadnet_response_timers() returns trigger
      language plpgsql as $$
      begin
        insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at)
        select distinct on (n.lead_id) n.lead_id, (n.data->>'to_id')::uuid, n.occurred_at, n.occurred_at
          from changed n where n.type = 'lead.assigned' and n.data->>'to_id' is not null
         order by n.lead_id, n.seq desc
        on conflict (lead_id) do update set store_id = excluded.store_id, assigned_at = excluded.assigned_at,
          computed = false, due_at = null, answered_at = null, breached_at = null${withRestarts ? ', counted_from = null' : ''};
        delete from lead_response_timers t using changed n
         where n.type = 'lead.assigned' and n.data->>'to_id' is null and t.lead_id = n.lead_id
           and not exists (select 1 from changed m where m.lead_id = n.lead_id and m.type = 'lead.assigned' and m.seq > n.seq);
        update lead_response_timers t set answered_at = a.at
          from (select n.lead_id, min(n.occurred_at) as at from changed n
                 where ${ANSWERS}
                 group by n.lead_id) a
         where t.lead_id = a.lead_id and t.answered_at is null and a.at > t.assigned_at${ANSWERED_BY_THE_STORE};${
           withRestarts
             ? `
        update lead_response_timers t set answered_at = null
          from changed n where n.type = 'lead.merged' and t.lead_id = n.lead_id and t.answered_at = n.occurred_at;`
             : ''
         }
        return null;
      end $$;`;
  }
}
