import { Migration } from '@mikro-orm/migrations';

const TYPES = `'lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created'`;

/**
 * First-response timers (src/modules/response-times, docs/response-times.md). A company's first-response
 * time lives in `company_response_settings`. Every lead assigned to a store gets a row in
 * `lead_response_timers` by trigger on the lead events outbox, in the transaction of the change: a new
 * assignment restarts it (its due time is computed by the response-time worker from the store's hours),
 * a status change or an activity (other than an assignment) recorded after the assignment answers it.
 * `lead.sla_breached` joins the lead event types; breaches are sent to notification recipients too.
 */
export class Migration20261126170100_response_timers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" check ("type" in (${TYPES}, 'lead.sla_breached'));`);
    this.addSql(`create table "company_response_settings" (
      "company_id" uuid not null primary key references "companies" ("id") on delete cascade,
      "first_response_minutes" int null check ("first_response_minutes" between 1 and 525600),
      "business_hours" boolean not null default true,
      "reassign" boolean not null default false,
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create table "lead_response_timers" (
      "lead_id" uuid not null primary key references "leads" ("id") on delete cascade,
      "store_id" uuid not null,
      "first_assigned_at" timestamptz not null,
      "assigned_at" timestamptz not null,
      "computed" boolean not null default false,
      "due_at" timestamptz null,
      "answered_at" timestamptz null,
      "breached_at" timestamptz null,
      "reassignments" int not null default 0);`);
    this.addSql(`create index "lead_response_timers_due_index" on "lead_response_timers" ("due_at") where "answered_at" is null and "breached_at" is null and "due_at" is not null;`);
    this.addSql(`create index "lead_response_timers_uncomputed_index" on "lead_response_timers" ("assigned_at") where not "computed";`);
    this.addSql(`create or replace function leadnet_response_timers() returns trigger
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
         where t.lead_id = a.lead_id and t.answered_at is null and a.at > t.assigned_at;
        return null;
      end $$;`);
    this.addSql(`create trigger "response_timers_lead_events_inserted" after insert on "lead_events"
      referencing new table as changed for each statement execute function leadnet_response_timers();`);
    // Breaches are mailed like assignments (the notification worker's queue).
    this.addSql(`create or replace function leadnet_notification_events() returns trigger
      language plpgsql as $$
      begin
        insert into notification_events (event_id, seq)
        select n.id, n.seq from changed n
         where (n.type = 'lead.assigned' and n.data->>'to_id' is not null) or n.type = 'lead.sla_breached';
        return null;
      end $$;`);
    this.addSql(`alter table "notification_preferences" add column "sla_breached" text null constraint "notification_preferences_sla_breached_check" check ("sla_breached" in ('immediate', 'off'));`);
    this.addSql(`alter table "notification_preferences" alter column "lead_assigned" drop not null;`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest', 'sla_breached'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "notification_deliveries" where "kind" = 'sla_breached';`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest'));`);
    this.addSql(`alter table "notification_preferences" drop column if exists "sla_breached";`);
    this.addSql(`create or replace function leadnet_notification_events() returns trigger
      language plpgsql as $$
      begin
        insert into notification_events (event_id, seq)
        select n.id, n.seq from changed n where n.type = 'lead.assigned' and n.data->>'to_id' is not null;
        return null;
      end $$;`);
    this.addSql(`drop trigger if exists "response_timers_lead_events_inserted" on "lead_events";`);
    this.addSql(`drop function if exists leadnet_response_timers();`);
    this.addSql(`drop table if exists "lead_response_timers";`);
    this.addSql(`drop table if exists "company_response_settings";`);
    this.addSql(`delete from "lead_events" where "type" = 'lead.sla_breached';`);
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" check ("type" in (${TYPES}));`);
  }
}
