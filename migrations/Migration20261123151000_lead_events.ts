import { Migration } from '@mikro-orm/migrations';

/**
 * Lead events (PRODUCT.md 11: `lead.created`, `lead.updated`, `lead.assigned`, `lead.status_changed`,
 * `lead.merged`, `lead_activity.created`), written in the transaction of the change: row triggers for
 * what the rows say (creation, status, assignee, new activities), the lead service for what only it knows
 * (a merge, an update). Every new event is announced with NOTIFY at commit, so each service process hears
 * of it; `seq` orders them for a reader catching up after a lost connection.
 */
export class Migration20261123151000_lead_events extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "lead_events" (
      "id" uuid not null default gen_random_uuid() primary key,
      "seq" bigint generated always as identity,
      "type" text not null check ("type" in ('lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created')),
      "lead_id" uuid not null,
      "lead_activity_id" uuid null,
      "owner_company_id" uuid null,
      "owner_retailer_id" uuid null,
      "occurred_at" timestamptz not null default now()
    );`);
    this.addSql(`create unique index "lead_events_seq_index" on "lead_events" ("seq");`);
    this.addSql(`create index "lead_events_lead_id_index" on "lead_events" ("lead_id");`);

    this.addSql(`create or replace function leadnet_lead_event(event_type text, lead leads, activity_id uuid) returns void
      language sql as $$
      insert into lead_events (type, lead_id, lead_activity_id, owner_company_id, owner_retailer_id)
        values (event_type, lead.id, activity_id, lead.owner_company_id, lead.owner_retailer_id);
      $$;`);
    this.addSql(`create or replace function leadnet_lead_events_of_lead() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          perform leadnet_lead_event('lead.created', NEW, null);
          if NEW.assignee_id is not null then perform leadnet_lead_event('lead.assigned', NEW, null); end if;
        else
          if NEW.status is distinct from OLD.status then perform leadnet_lead_event('lead.status_changed', NEW, null); end if;
          if NEW.assignee_id is distinct from OLD.assignee_id then perform leadnet_lead_event('lead.assigned', NEW, null); end if;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_events after insert or update of status, assignee_id on leads
      for each row execute function leadnet_lead_events_of_lead();`);
    this.addSql(`create or replace function leadnet_lead_events_of_activity() returns trigger
      language plpgsql as $$
      begin
        perform leadnet_lead_event('lead_activity.created', l, NEW.id) from leads l where l.id = NEW.lead_id;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_events after insert on lead_activities
      for each row execute function leadnet_lead_events_of_activity();`);
    // Each event is announced at commit with its id, to every listening process (in commit order).
    this.addSql(`create or replace function leadnet_lead_events_notify() returns trigger
      language plpgsql as $$
      begin
        perform pg_notify('leadnet_lead_events', NEW.id::text);
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_events_notify after insert on lead_events
      for each row execute function leadnet_lead_events_notify();`);
  }

  async down(): Promise<void> {
    this.addSql(`drop trigger if exists leadnet_lead_events on leads;`);
    this.addSql(`drop trigger if exists leadnet_lead_events on lead_activities;`);
    this.addSql(`drop table if exists "lead_events";`);
    this.addSql(`drop function if exists leadnet_lead_events_notify(), leadnet_lead_events_of_activity(), leadnet_lead_events_of_lead(), leadnet_lead_event(text, leads, uuid);`);
  }
}
