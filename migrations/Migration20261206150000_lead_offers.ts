import { Migration } from '@mikro-orm/migrations';

const EVENT_TYPES = `'lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created', 'lead.sla_breached'`;
const LOOP_EVENT_TYPES = `'lead.offered', 'lead.accepted', 'lead.declined', 'lead.offer_expired', 'lead.outcome_recorded'`;
const ACTIVITY_TYPES = `'LeadActivity::InboundCall', 'LeadActivity::OutboundCall', 'LeadActivity::OutboundEmail', 'LeadActivity::Voicemail', 'LeadActivity::Note', 'LeadActivity::SampleRequest', 'LeadActivity::QuoteRequest', 'LeadActivity::Referral', 'LeadActivity::Purchase', 'LeadActivity::Assignment', 'LeadActivity::StatusChange'`;
const LOOP_ACTIVITY_TYPES = `'LeadActivity::OfferAccepted', 'LeadActivity::OfferDeclined', 'LeadActivity::OfferExpired', 'LeadActivity::Outcome'`;

/**
 * Offers (issue 42, docs/lead-loop.md): every assignment of a lead to a store is an offer the store
 * accepts or declines. `lead_offers` is kept by trigger on the lead events outbox, in the transaction of
 * the assignment, whoever wrote it (API, routing, reassignment, import), as `lead_response_timers` is: a
 * `lead.assigned` event withdraws the lead's open offer and opens one for the new store (if any), with a
 * `lead.offered` event. `handovers` counts the lead's offers that were declined or lapsed before this one.
 * `respond_by` is computed by the response-time worker from the company's `accept_minutes` in the store's
 * business hours (`computed`), counted from `offered_at`, or from `counted_from` when a settings change
 * restarted it. Assigned leads get an open offer now (no event). The loop's event and activity types join
 * their CHECK constraints; the activity types are written by the system only (src/modules/lead/lead.rules.ts).
 */
export class Migration20261206150000_lead_offers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" check ("type" in (${EVENT_TYPES}, ${LOOP_EVENT_TYPES}));`);
    this.addSql(`alter table "lead_activities" drop constraint "lead_activities_type_check";`);
    this.addSql(`alter table "lead_activities" add constraint "lead_activities_type_check" check ("type" in (${ACTIVITY_TYPES}, ${LOOP_ACTIVITY_TYPES}));`);
    this.addSql(`alter table "company_response_settings"
      add column "accept_minutes" int null constraint "company_response_settings_accept_minutes_check" check ("accept_minutes" between 1 and 525600),
      add column "max_handovers" int not null default 3 constraint "company_response_settings_max_handovers_check" check ("max_handovers" between 0 and 100);`);
    this.addSql(`create table "lead_offers" (
      "id" uuid not null default gen_random_uuid() primary key,
      "lead_id" uuid not null references "leads" ("id") on delete cascade,
      "store_id" uuid not null references "company_retailer_locations" ("id") on delete cascade,
      "company_id" uuid not null,
      "offered_at" timestamptz not null default now(),
      "counted_from" timestamptz null,
      "respond_by" timestamptz null,
      "computed" boolean not null default false,
      "state" text not null default 'open' constraint "lead_offers_state_check" check ("state" in ('open', 'accepted', 'declined', 'expired', 'withdrawn')),
      "answered_at" timestamptz null,
      "answered_by_id" uuid null references "users" ("id") on delete set null,
      "decline_reason" text null constraint "lead_offers_decline_reason_check" check ("decline_reason" in ('too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other')),
      "decline_note" text null constraint "lead_offers_decline_note_length" check (length("decline_note") <= 500),
      "handovers" int not null default 0);`);
    this.addSql(`create unique index "lead_offers_open_unique" on "lead_offers" ("lead_id") where "state" = 'open';`);
    this.addSql(`create index "lead_offers_lead_id_offered_at_index" on "lead_offers" ("lead_id", "offered_at");`);
    this.addSql(`create index "lead_offers_company_id_offered_at_index" on "lead_offers" ("company_id", "offered_at");`);
    this.addSql(`create index "lead_offers_store_id_state_index" on "lead_offers" ("store_id", "state");`);
    this.addSql(`create index "lead_offers_respond_by_index" on "lead_offers" ("respond_by") where "state" = 'open' and "respond_by" is not null;`);
    this.addSql(`create index "lead_offers_uncomputed_index" on "lead_offers" ("offered_at") where "state" = 'open' and not "computed";`);
    this.addSql(`create or replace function leadnet_lead_offers() returns trigger
      language plpgsql as $$
      begin
        -- Its own lead.offered insert fires it again (a statement trigger fires for no rows too).
        if not exists (select 1 from changed n where n.type = 'lead.assigned') then
          return null;
        end if;
        update lead_offers o set state = 'withdrawn', answered_at = a.at
          from (select n.lead_id, min(n.occurred_at) as at from changed n where n.type = 'lead.assigned' group by n.lead_id) a
         where o.lead_id = a.lead_id and o.state = 'open';
        with opened as (
          insert into lead_offers (lead_id, store_id, company_id, offered_at, handovers)
          select a.lead_id, a.store_id, s.company_id, a.occurred_at,
                 (select count(*) from lead_offers p where p.lead_id = a.lead_id and p.state in ('declined', 'expired'))
            from (select distinct on (n.lead_id) n.lead_id, (n.data->>'to_id')::uuid as store_id, n.occurred_at, n.seq
                    from changed n where n.type = 'lead.assigned'
                   order by n.lead_id, n.seq desc) a
            join company_retailer_locations s on s.id = a.store_id
           order by a.seq
          returning id, lead_id, store_id, handovers)
        insert into lead_events (type, lead_id, owner_company_id, owner_retailer_id, data)
        select 'lead.offered', l.id, l.owner_company_id, l.owner_retailer_id,
               jsonb_build_object('offer_id', o.id, 'store_id', o.store_id, 'handovers', o.handovers)
          from opened o join leads l on l.id = o.lead_id;
        return null;
      end $$;`);
    this.addSql(`create trigger "lead_offers_lead_events_inserted" after insert on "lead_events"
      referencing new table as changed for each statement execute function leadnet_lead_offers();`);
    this.addSql(`insert into lead_offers (lead_id, store_id, company_id, offered_at)
      select l.id, l.assignee_id, s.company_id, coalesce(t.assigned_at, l.created_at)
        from leads l join company_retailer_locations s on s.id = l.assignee_id
        left join lead_response_timers t on t.lead_id = l.id and t.store_id = l.assignee_id;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "lead_offers_lead_events_inserted" on "lead_events";`);
    this.addSql(`drop function if exists leadnet_lead_offers();`);
    this.addSql(`drop table if exists "lead_offers";`);
    this.addSql(`alter table "company_response_settings" drop column if exists "accept_minutes", drop column if exists "max_handovers";`);
    this.addSql(`delete from "lead_activities" where "type" in (${LOOP_ACTIVITY_TYPES});`);
    this.addSql(`alter table "lead_activities" drop constraint "lead_activities_type_check";`);
    this.addSql(`alter table "lead_activities" add constraint "lead_activities_type_check" check ("type" in (${ACTIVITY_TYPES}));`);
    this.addSql(`delete from "lead_events" where "type" in (${LOOP_EVENT_TYPES});`);
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" check ("type" in (${EVENT_TYPES}));`);
  }
}
