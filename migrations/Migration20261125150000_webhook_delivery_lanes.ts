import { Migration } from '@mikro-orm/migrations';

/**
 * Per-endpoint delivery queues (`WebhookWorker`): each endpoint's due deliveries are taken in event
 * order, its own few at a time, by an index on (endpoint, due time, event order). A delivery carries its
 * event's `seq` for that order.
 */
export class Migration20261125150000_webhook_delivery_lanes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "event_seq" bigint null;`);
    this.addSql(`update "webhook_deliveries" d set "event_seq" = e."seq" from "lead_events" e where e."id" = d."event_id";`);
    this.addSql(`alter table "webhook_deliveries" alter column "event_seq" set not null;`);
    this.addSql(`create index "webhook_deliveries_endpoint_due_index" on "webhook_deliveries" ("endpoint_id", "next_attempt_at", "event_seq") where "status" = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_endpoint_due_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column if exists "event_seq";`);
  }
}
