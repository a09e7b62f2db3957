import { Migration } from '@mikro-orm/migrations';

/**
 * The leads' trigram index takes new entries into a pending list of at most 256 kB, merged into the
 * index in batches by the write that fills it (or by autovacuum), instead of one trigram at a time: a
 * lead row version puts ~60 trigrams into it, and this made seeding 100,000 leads 2.6 times faster
 * (docs/scaling.md). A search reads the list whole, which the bound keeps to 32 pages (the products'
 * index keeps `fastupdate = off`, where the default bound of 4 MB was the concern).
 */
export class Migration20261125161000_lead_search_text_pending_list extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter index "leads_search_text_trgm_index" set (fastupdate = on, gin_pending_list_limit = 256);`);
  }

  async down(): Promise<void> {
    this.addSql(`select gin_clean_pending_list('leads_search_text_trgm_index');`);
    this.addSql(`alter index "leads_search_text_trgm_index" set (fastupdate = off);`);
    this.addSql(`alter index "leads_search_text_trgm_index" reset (gin_pending_list_limit);`);
  }
}
