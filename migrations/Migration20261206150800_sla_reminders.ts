import { Migration } from '@mikro-orm/migrations';

/**
 * A reminder before a breach (docs/notifications.md "Reminders"): the response-time worker gives each timer
 * a `remind_at` with its due time (75% of the first-response time, counted as the due time is); the
 * notification worker mails the store's own staff a `sla_reminder` once per timer: `reminded_for` holds the
 * start (`counted_from`, else `assigned_at`) of the timer it reminded of, so a restarted timer (a new
 * assignment, a changed time) is reminded of again and a reminded one never twice.
 */
export class Migration20261206150800_sla_reminders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "lead_response_timers" add column "remind_at" timestamptz null, add column "reminded_for" timestamptz null;`);
    this.addSql(`create index "lead_response_timers_remind_index" on "lead_response_timers" ("remind_at") where "answered_at" is null and "breached_at" is null and "remind_at" is not null;`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest', 'sla_breached', 'lead_lost', 'sla_reminder'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "notification_deliveries" where "kind" = 'sla_reminder';`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest', 'sla_breached', 'lead_lost'));`);
    this.addSql(`drop index if exists "lead_response_timers_remind_index";`);
    this.addSql(`alter table "lead_response_timers" drop column if exists "remind_at", drop column if exists "reminded_for";`);
  }
}
