import { Migration } from '@mikro-orm/migrations';

/**
 * The search outbox's lanes: each row records the transaction that queued it (`txid_current()`, as a
 * column default, so the triggers and `enqueueAll` need no change). The background indexer's batches take
 * the oldest lanes' rows in turns (src/search/elasticsearch/outbox.ts `claim`): a million-row import or a
 * first fill is one lane, and another company's change, queued behind it, goes in the next batch instead
 * of after the whole backlog. Rows queued before this migration share lane 0.
 */
export class Migration20261201100000_search_outbox_lanes extends Migration {
  async up(): Promise<void> {
    // A constant default first (no table rewrite), then the transaction for every row queued from now on.
    this.addSql(`alter table "search_outbox" add column "lane" bigint not null default 0;`);
    this.addSql(`alter table "search_outbox" alter column "lane" set default txid_current();`);
    // A lane's due rows in claim order, and the skip scan over the lanes.
    this.addSql(`create index "search_outbox_lane_available_at_id_index" on "search_outbox" ("lane", "available_at", "id");`);
  }

  async down(): Promise<void> {
    this.addSql(`drop index if exists "search_outbox_lane_available_at_id_index";`);
    this.addSql(`alter table "search_outbox" drop column if exists "lane";`);
  }
}
