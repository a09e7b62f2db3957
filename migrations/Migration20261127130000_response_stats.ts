import { Migration } from '@mikro-orm/migrations';

/** The lead's scope keys a fact copies (Migration20261123110000_lead_scope_keys), so a role's scope reads the fact alone. */
const KEYS = ['owner_company_id', 'owner_retailer_id', 'assignee_id', 'assignee_company_id', 'assignee_territory_id',
  'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id'];
const FACT = [...KEYS, 'created_at', 'created_week', 'assigned_week', 'bucket', 'breached', 'won', 'lost'];
/** The same expressions as lead.search.ts's beyond-owner fields (their indexes must match them). */
const BEYOND_COMPANY = '(case when assignee_company_id is distinct from owner_company_id then assignee_company_id end)';
const BEYOND_RETAILER = '(case when assignee_retailer_id is distinct from owner_retailer_id then assignee_retailer_id end)';
const ROLLUP_KEYS = ['owner_company_id', 'assignee_company_id', 'created_week', 'assigned_week', 'bucket'];

/** A lead's fact from the lead `l` and its timer `t`, in the order of FACT (lead_id first). */
const FACT_OF = `l.id, ${KEYS.map((k) => `l.${k}`).join(', ')}, l.created_at,
  date_trunc('week', l.created_at at time zone 'UTC')::date, date_trunc('week', t.first_assigned_at at time zone 'UTC')::date,
  leadnet_response_bucket(extract(epoch from t.answered_at - t.assigned_at)::float8), t.breached_at is not null,
  lower(l.status) = 'won', lower(l.status) = 'lost'`;

/** Adds the facts of `added` and subtracts those of `removed` (transition tables) from the company rollup. */
function rollupDelta(added: string | null, removed: string | null): string {
  const part = (table: string, sign: number) => `select ${sign} as s, ${ROLLUP_KEYS.join(', ')}, breached, won, lost from ${table}`;
  const parts = [added && part(added, 1), removed && part(removed, -1)].filter(Boolean).join(' union all ');
  return `insert into lead_response_rollups as r (${ROLLUP_KEYS.join(', ')}, received, breaches, won, lost)
    select ${ROLLUP_KEYS.join(', ')}, sum(s), sum(s * breached::int), sum(s * won::int), sum(s * lost::int)
      from (${parts}) d
     where owner_company_id is not null or assignee_company_id is not null
     group by ${ROLLUP_KEYS.join(', ')}
    having sum(s) <> 0 or sum(s * breached::int) <> 0 or sum(s * won::int) <> 0 or sum(s * lost::int) <> 0
     order by ${ROLLUP_KEYS.join(', ')}
    on conflict (${ROLLUP_KEYS.join(', ')}) do update set received = r.received + excluded.received,
      breaches = r.breaches + excluded.breaches, won = r.won + excluded.won, lost = r.lost + excluded.lost;
    delete from lead_response_rollups where received = 0;`;
}

/**
 * Answered by the assignee: the user of the write (`leadnet.actor_id`) works at the assigned store (its
 * company location users and sales associates, the store managers of its retailer location, its
 * retailer's admins). A condition on the timer `t` of `leadnet_response_timers()`.
 */
export const ANSWERED_BY_THE_STORE = `
           and exists (select 1 from users u join company_retailer_locations s on s.id = t.store_id
                        where u.id = nullif(current_setting('leadnet.actor_id', true), '')::uuid
                          and ((u.role in ('company_location_user', 'company_sales_associate')
                                and exists (select 1 from user_company_retailer_locations x where x.user_id = u.id and x.company_retailer_location_id = s.id))
                            or (u.role = 'retailer_store_manager'
                                and exists (select 1 from user_retailer_locations x where x.user_id = u.id and x.retailer_location_id = s.retailer_location_id))
                            or (u.role = 'retailer_admin' and u.retailer_id = s.retailer_id)))`;

/** `leadnet_response_timers()` of Migration20261126170100_response_timers, answering only when `answeredBy`. */
function timersFunction(answeredBy: string): string {
  return `create or replace function leadnet_response_timers() returns trigger
      language plpgsql as $$
      begin
        insert into lead_response_timers (lead_id, store_id, first_assigned_at, assigned_at)
        select distinct on (n.lead_id) n.lead_id, (n.data->>'to_id')::uuid, n.occurred_at, n.occurred_at
          from changed n where n.type = 'lead.assigned' and n.data->>'to_id' is not null
         order by n.lead_id, n.seq desc
        on conflict (lead_id) do update set store_id = excluded.store_id, assigned_at = excluded.assigned_at,
          computed = false, due_at = null, answered_at = null, breached_at = null;
        delete from lead_response_timers t using changed n
         where n.type = 'lead.assigned' and n.data->>'to_id' is null and t.lead_id = n.lead_id
           and not exists (select 1 from changed m where m.lead_id = n.lead_id and m.type = 'lead.assigned' and m.seq > n.seq);
        update lead_response_timers t set answered_at = a.at
          from (select n.lead_id, min(n.occurred_at) as at from changed n
                 where n.type = 'lead.status_changed'
                    or (n.type = 'lead_activity.created' and coalesce(n.data->>'activity_type', '') not in ('LeadActivity::Assignment', 'LeadActivity::StatusChange'))
                 group by n.lead_id) a
         where t.lead_id = a.lead_id and t.answered_at is null and a.at > t.assigned_at${answeredBy};
        return null;
      end $$;`;
}

/**
 * Response-time statistics kept for dashboards (docs/response-times.md "How the figures are kept").
 *
 * - `lead_response_facts`: one row per lead with a first-response timer, what it contributes to the
 *   figures (its scope keys, creation time and week, week of first assignment, the log-scale bucket of
 *   its time to first response, breached, won, lost), refreshed by triggers on `leads` and
 *   `lead_response_timers` in the transaction of every change.
 * - `lead_response_rollups`: the facts summed per owner company, assignee company, creation week, week
 *   of first assignment and bucket, kept from the facts' transition tables (added minus removed), which
 *   a company admin's dashboard reads instead of its leads.
 * - A lead counts as answered only when the user who records the status change or activity works at the
 *   assigned store (`leadnet.actor_id`, set by the API in the transaction of the write).
 * Both tables are filled from the existing leads.
 */
export class Migration20261127130000_response_stats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function leadnet_response_bucket(seconds float8) returns smallint
      language sql immutable parallel safe as $$
        select case when seconds is null then null when seconds < 1 then 0
                    else least(1 + floor(ln(seconds) / ln(1.1)), 32767) end::smallint $$;`);
    this.addSql(`create table "lead_response_facts" (
      "lead_id" uuid not null primary key references "leads" ("id") on delete cascade,
      ${KEYS.map((k) => `"${k}" uuid null`).join(', ')},
      "created_at" timestamptz not null,
      "created_week" date not null,
      "assigned_week" date not null,
      "bucket" smallint null,
      "breached" boolean not null,
      "won" boolean not null,
      "lost" boolean not null);`);
    this.addSql(`create index "lead_response_facts_owner_company_index" on "lead_response_facts" ("owner_company_id", "created_at") where "owner_company_id" is not null;`);
    this.addSql(`create index "lead_response_facts_owner_retailer_index" on "lead_response_facts" ("owner_retailer_id", "created_at") where "owner_retailer_id" is not null;`);
    this.addSql(`create index "lead_response_facts_beyond_company_index" on "lead_response_facts" (${BEYOND_COMPANY}, "created_at") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create index "lead_response_facts_beyond_retailer_index" on "lead_response_facts" (${BEYOND_RETAILER}, "created_at") where ${BEYOND_RETAILER} is not null;`);
    this.addSql(`create index "lead_response_facts_assignee_company_index" on "lead_response_facts" ("assignee_company_id", "created_at");`);
    this.addSql(`create index "lead_response_facts_assignee_index" on "lead_response_facts" ("assignee_id", "created_at");`);
    this.addSql(`create index "lead_response_facts_assignee_retailer_location_index" on "lead_response_facts" ("assignee_retailer_location_id", "created_at") where "assignee_retailer_location_id" is not null;`);

    this.addSql(`create table "lead_response_rollups" (
      "owner_company_id" uuid null,
      "assignee_company_id" uuid null,
      "created_week" date not null,
      "assigned_week" date not null,
      "bucket" smallint null,
      "received" int not null,
      "breaches" int not null,
      "won" int not null,
      "lost" int not null,
      constraint "lead_response_rollups_key" unique nulls not distinct (${ROLLUP_KEYS.map((k) => `"${k}"`).join(', ')}));`);
    this.addSql(`create index "lead_response_rollups_beyond_company_index" on "lead_response_rollups" (${BEYOND_COMPANY}, "created_week") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create index "lead_response_rollups_empty_index" on "lead_response_rollups" ("received") where "received" = 0;`);

    // Back-fill from the leads there are, then keep.
    this.addSql(`insert into lead_response_facts (lead_id, ${FACT.join(', ')})
      select ${FACT_OF} from leads l join lead_response_timers t on t.lead_id = l.id;`);
    this.addSql(`insert into lead_response_rollups (${ROLLUP_KEYS.join(', ')}, received, breaches, won, lost)
      select ${ROLLUP_KEYS.join(', ')}, count(*), count(*) filter (where breached), count(*) filter (where won), count(*) filter (where lost)
        from lead_response_facts where owner_company_id is not null or assignee_company_id is not null
       group by ${ROLLUP_KEYS.join(', ')};`);
    // Small, hot tables: a parallel plan costs more in worker start-up than it saves (most on a loaded host).
    this.addSql(`alter table "lead_response_facts" set (parallel_workers = 0);`);
    this.addSql(`alter table "lead_response_rollups" set (parallel_workers = 0);`);
    // Plans read row counts: a back-filled table without statistics is planned as nearly empty.
    this.addSql(`analyze "lead_response_facts";`);
    this.addSql(`analyze "lead_response_rollups";`);

    this.addSql(`create or replace function leadnet_response_facts_refresh(ids uuid[]) returns void
      language sql as $$
        delete from lead_response_facts f where f.lead_id = any(ids)
           and not exists (select 1 from leads l join lead_response_timers t on t.lead_id = l.id where l.id = f.lead_id);
        insert into lead_response_facts as f (lead_id, ${FACT.join(', ')})
        select ${FACT_OF} from leads l join lead_response_timers t on t.lead_id = l.id where l.id = any(ids) order by l.id
        on conflict (lead_id) do update set (${FACT.join(', ')}) = (${FACT.map((c) => `excluded.${c}`).join(', ')})
         where (${FACT.map((c) => `f.${c}`).join(', ')}) is distinct from (${FACT.map((c) => `excluded.${c}`).join(', ')});
      $$;`);
    const TIMER = ['store_id', 'first_assigned_at', 'assigned_at', 'answered_at', 'breached_at'];
    this.addSql(`create or replace function leadnet_response_facts_timers_inserted() returns trigger language plpgsql as $$
      begin perform leadnet_response_facts_refresh(array(select distinct lead_id from changed)); return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_facts_timers_deleted() returns trigger language plpgsql as $$
      begin perform leadnet_response_facts_refresh(array(select distinct lead_id from previous)); return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_facts_timers_updated() returns trigger language plpgsql as $$
      begin
        perform leadnet_response_facts_refresh(array(
          select distinct n.lead_id from changed n join previous o on o.lead_id = n.lead_id
           where (${TIMER.map((c) => `n.${c}`).join(', ')}) is distinct from (${TIMER.map((c) => `o.${c}`).join(', ')})));
        return null;
      end $$;`);
    const LEAD = [...KEYS, 'created_at', 'status'];
    this.addSql(`create or replace function leadnet_response_facts_leads_updated() returns trigger language plpgsql as $$
      begin
        perform leadnet_response_facts_refresh(array(
          select n.id from changed n join previous o on o.id = n.id
           where (${LEAD.map((c) => `n.${c}`).join(', ')}) is distinct from (${LEAD.map((c) => `o.${c}`).join(', ')})));
        return null;
      end $$;`);
    this.addSql(`create trigger "response_facts_timers_inserted" after insert on "lead_response_timers"
      referencing new table as changed for each statement execute function leadnet_response_facts_timers_inserted();`);
    this.addSql(`create trigger "response_facts_timers_updated" after update on "lead_response_timers"
      referencing old table as previous new table as changed for each statement execute function leadnet_response_facts_timers_updated();`);
    this.addSql(`create trigger "response_facts_timers_deleted" after delete on "lead_response_timers"
      referencing old table as previous for each statement execute function leadnet_response_facts_timers_deleted();`);
    this.addSql(`create trigger "response_facts_leads_updated" after update on "leads"
      referencing old table as previous new table as changed for each statement execute function leadnet_response_facts_leads_updated();`);

    this.addSql(`create or replace function leadnet_response_rollups_facts_inserted() returns trigger language plpgsql as $$
      begin ${rollupDelta('changed', null)} return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_rollups_facts_updated() returns trigger language plpgsql as $$
      begin ${rollupDelta('changed', 'previous')} return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_rollups_facts_deleted() returns trigger language plpgsql as $$
      begin ${rollupDelta(null, 'previous')} return null; end $$;`);
    this.addSql(`create trigger "response_rollups_facts_inserted" after insert on "lead_response_facts"
      referencing new table as changed for each statement execute function leadnet_response_rollups_facts_inserted();`);
    this.addSql(`create trigger "response_rollups_facts_updated" after update on "lead_response_facts"
      referencing old table as previous new table as changed for each statement execute function leadnet_response_rollups_facts_updated();`);
    this.addSql(`create trigger "response_rollups_facts_deleted" after delete on "lead_response_facts"
      referencing old table as previous for each statement execute function leadnet_response_rollups_facts_deleted();`);

    this.addSql(timersFunction(ANSWERED_BY_THE_STORE));
  }

  override async down(): Promise<void> {
    this.addSql(timersFunction(''));
    for (const [trigger, table] of [
      ['response_rollups_facts_inserted', 'lead_response_facts'], ['response_rollups_facts_updated', 'lead_response_facts'],
      ['response_rollups_facts_deleted', 'lead_response_facts'], ['response_facts_timers_inserted', 'lead_response_timers'],
      ['response_facts_timers_updated', 'lead_response_timers'], ['response_facts_timers_deleted', 'lead_response_timers'],
      ['response_facts_leads_updated', 'leads'],
    ]) this.addSql(`drop trigger if exists "${trigger}" on "${table}";`);
    for (const fn of ['leadnet_response_rollups_facts_inserted', 'leadnet_response_rollups_facts_updated', 'leadnet_response_rollups_facts_deleted',
      'leadnet_response_facts_timers_inserted', 'leadnet_response_facts_timers_updated', 'leadnet_response_facts_timers_deleted',
      'leadnet_response_facts_leads_updated']) this.addSql(`drop function if exists ${fn}();`);
    this.addSql(`drop function if exists leadnet_response_facts_refresh(uuid[]);`);
    this.addSql(`drop table if exists "lead_response_rollups";`);
    this.addSql(`drop table if exists "lead_response_facts";`);
    this.addSql(`drop function if exists leadnet_response_bucket(float8);`);
  }
}
