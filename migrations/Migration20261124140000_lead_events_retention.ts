import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for pruning the outbox (`WebhookWorker.prune`): old dispatched events found by age, and the
 * deliveries (the delivery log) an event's deletion cascades to found by event.
 */
export class Migration20261124140000_lead_events_retention extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index if not exists "lead_events_occurred_at_index" on "lead_events" ("occurred_at") where "dispatched_at" is not null;`);
    this.addSql(`create index if not exists "webhook_deliveries_event_id_index" on "webhook_deliveries" ("event_id");`);
  }

  async down(): Promise<void> {
    this.addSql(`drop index if exists "webhook_deliveries_event_id_index";`);
    this.addSql(`drop index if exists "lead_events_occurred_at_index";`);
  }
}
