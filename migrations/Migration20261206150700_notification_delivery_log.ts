import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery log per mail (docs/notifications.md "Delivery log"): every step of a notification delivery as
 * it happened: `queued` (made by the fan-out or a digest), `sent`, `retried` (a failure to be tried
 * again), `failed` (given up), `bounced` (the SMTP server refused the recipient or message for good, a
 * 5xx), `skipped` (nothing left to tell), `digested` (gathered into a digest). The SMTP reply code and a
 * short error, never a secret or the message body. Read by the company admin through
 * `notificationDeliveries`; deleted with its delivery.
 */
export class Migration20261206150700_notification_delivery_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "notification_delivery_log" (
      "id" bigserial primary key,
      "delivery_id" uuid not null references "notification_deliveries" ("id") on delete cascade,
      "status" text not null check ("status" in ('queued', 'sent', 'retried', 'failed', 'bounced', 'skipped', 'digested')),
      "attempt" int not null default 0,
      "smtp_code" int null,
      "error" text null,
      "at" timestamptz not null default now());`);
    this.addSql(`create index "notification_delivery_log_delivery_index" on "notification_delivery_log" ("delivery_id", "id");`);
    this.addSql(`create index "notification_deliveries_created_index" on "notification_deliveries" ("created_at" desc, "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "notification_deliveries_created_index";`);
    this.addSql(`drop table if exists "notification_delivery_log";`);
  }
}
