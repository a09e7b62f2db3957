import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail notifications (src/modules/notifications, docs/notifications.md). A user's `locale` (`en`, `fr`)
 * picks the language of the mails; `notification_preferences` holds what a user chose (no row: the role's
 * default). Every `lead.assigned` event of the lead events outbox gets a row in `notification_events`
 * by trigger, in the transaction of the change; the notification worker fans each out to
 * `notification_deliveries`, one per event and recipient (unique), sent immediately or gathered into a
 * daily digest (a delivery of kind `digest` that the gathered rows point at). Deliveries are claimed per
 * `lane` (the organisation whose lead it is) so that one organisation's mail only ever delays its own.
 */
export class Migration20261126170000_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "locale" text not null default 'en' constraint "users_locale_check" check ("locale" in ('en', 'fr'));`);
    this.addSql(`create table "notification_preferences" (
      "user_id" uuid not null primary key references "users" ("id") on delete cascade,
      "lead_assigned" text not null constraint "notification_preferences_lead_assigned_check" check ("lead_assigned" in ('immediate', 'daily_digest', 'off')),
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create table "notification_events" (
      "event_id" uuid not null primary key references "lead_events" ("id") on delete cascade,
      "seq" bigint not null);`);
    this.addSql(`create index "notification_events_seq_index" on "notification_events" ("seq");`);
    this.addSql(`create table "notification_deliveries" (
      "id" uuid not null default gen_random_uuid() primary key,
      "kind" text not null check ("kind" in ('lead_assigned', 'digest')),
      "event_id" uuid null references "lead_events" ("id") on delete cascade,
      "lead_id" uuid null,
      "user_id" uuid not null references "users" ("id") on delete cascade,
      "lane" text not null,
      "status" text not null default 'pending' check ("status" in ('pending', 'queued', 'digested', 'sent', 'failed', 'skipped')),
      "digest_id" uuid null references "notification_deliveries" ("id") on delete set null,
      "attempts" int not null default 0,
      "next_attempt_at" timestamptz null,
      "last_error" text null,
      "sent_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      constraint "notification_deliveries_event_user_unique" unique ("event_id", "user_id"));`);
    this.addSql(`create index "notification_deliveries_lane_due_index" on "notification_deliveries" ("lane", "next_attempt_at") where "status" = 'pending';`);
    this.addSql(`create index "notification_deliveries_queued_index" on "notification_deliveries" ("next_attempt_at") where "status" = 'queued';`);
    this.addSql(`create index "notification_deliveries_digest_id_index" on "notification_deliveries" ("digest_id") where "digest_id" is not null;`);
    this.addSql(`create index "notification_deliveries_user_id_index" on "notification_deliveries" ("user_id");`);
    this.addSql(`create or replace function leadnet_notification_events() returns trigger
      language plpgsql as $$
      begin
        insert into notification_events (event_id, seq)
        select n.id, n.seq from changed n where n.type = 'lead.assigned' and n.data->>'to_id' is not null;
        return null;
      end $$;`);
    this.addSql(`create trigger "notification_events_lead_events_inserted" after insert on "lead_events"
      referencing new table as changed for each statement execute function leadnet_notification_events();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "notification_events_lead_events_inserted" on "lead_events";`);
    this.addSql(`drop function if exists leadnet_notification_events();`);
    this.addSql(`drop table if exists "notification_deliveries";`);
    this.addSql(`drop table if exists "notification_events";`);
    this.addSql(`drop table if exists "notification_preferences";`);
    this.addSql(`alter table "users" drop column if exists "locale";`);
  }
}
