import { Migration } from '@mikro-orm/migrations';

/**
 * An event keeps the W3C `traceparent` of the traced request that wrote it (docs/tracing.md), so its
 * webhook deliveries, however much later, are spans of that request's trace and send it on to the
 * receiver. The write transaction of a sampled request sets `leadnet.traceparent`
 * (src/db/traceparent.ts); the triggers that record events need no change, the column's default reads
 * it. Without tracing, or for an unsampled request, it is null.
 */
export class Migration20261207000700_event_traceparent extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table lead_events add column traceparent text default nullif(current_setting('leadnet.traceparent', true), '');`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table lead_events drop column if exists traceparent;`);
  }
}
