import { Migration } from '@mikro-orm/migrations';

const KINDS = `'lead_assigned', 'digest', 'sla_breached', 'lead_lost', 'sla_reminder'`;

const notificationEvents = (escalations: boolean) => `create or replace function leadnet_notification_events() returns trigger
      language plpgsql as $$
      begin
        insert into notification_events (event_id, seq)
        select n.id, n.seq from changed n
         where (n.type = 'lead.assigned' and n.data->>'to_id' is not null) or n.type = 'lead.sla_breached'${
           escalations ? `
            or (n.type in ('lead.declined', 'lead.offer_expired') and n.data->>'escalation' is not null)` : ''
         };
        return null;
      end $$;`;

/**
 * Escalated leads reach a person (docs/lead-loop.md "Escalation", docs/notifications.md "The escalation mail"):
 * - `leads.escalated_at`: when the lead was escalated (a decline or a lapse with no hand-over left), set by
 *   the offers service and the offer worker, cleared by a row trigger whenever the lead's store changes (a
 *   reassignment by hand is a new offer). Escalated leads are few: a partial index serves the lead list's
 *   `escalated_at` filter.
 * - `lead_offers.escalation`: on the offer whose decline or lapse escalated the lead, why
 *   (`max_handovers`, `no_eligible_store`).
 * - the escalation events (`lead.declined`, `lead.offer_expired` with an `escalation`) join the
 *   notification queue; their deliveries are of kind `lead_escalated`, and `notification_preferences.lead_escalated`
 *   (null: the default, `immediate`) is the recipient's setting.
 */
export class Migration20261206200100_lead_escalations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "leads" add column "escalated_at" timestamptz null;`);
    this.addSql(`create index "leads_escalated_at_index" on "leads" ("escalated_at") where "escalated_at" is not null;`);
    this.addSql(`create or replace function leadnet_lead_escalation_cleared() returns trigger
      language plpgsql as $$
      begin
        new.escalated_at := null;
        return new;
      end $$;`);
    this.addSql(`create trigger "leads_escalation_cleared" before update of assignee_id on "leads"
      for each row when (new.assignee_id is distinct from old.assignee_id and old.escalated_at is not null)
      execute function leadnet_lead_escalation_cleared();`);
    this.addSql(`alter table "lead_offers" add column "escalation" text null
      constraint "lead_offers_escalation_check" check ("escalation" in ('max_handovers', 'no_eligible_store'));`);
    this.addSql(`alter table "notification_preferences" add column "lead_escalated" text null
      constraint "notification_preferences_lead_escalated_check" check ("lead_escalated" in ('immediate', 'off'));`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in (${KINDS}, 'lead_escalated'));`);
    this.addSql(notificationEvents(true));
  }

  override async down(): Promise<void> {
    this.addSql(notificationEvents(false));
    this.addSql(`delete from "notification_deliveries" where "kind" = 'lead_escalated';`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in (${KINDS}));`);
    this.addSql(`alter table "notification_preferences" drop column if exists "lead_escalated";`);
    this.addSql(`alter table "lead_offers" drop column if exists "escalation";`);
    this.addSql(`drop trigger if exists "leads_escalation_cleared" on "leads";`);
    this.addSql(`drop function if exists leadnet_lead_escalation_cleared();`);
    this.addSql(`drop index if exists "leads_escalated_at_index";`);
    this.addSql(`alter table "leads" drop column if exists "escalated_at";`);
  }
}
