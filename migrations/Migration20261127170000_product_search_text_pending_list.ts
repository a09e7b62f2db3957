import { Migration } from '@mikro-orm/migrations';

/**
 * The products' trigram index takes new entries into a pending list of at most 256 kB, as the leads'
 * does (Migration20261125161000_lead_search_text_pending_list), instead of inserting every trigram of
 * every new product row version on its own: that was most of the time of `leadnet import products`
 * (1,000 products in 1.0-1.2 s with `fastupdate = off`, 0.39-0.44 s with the list; docs/scaling.md).
 * The bound keeps what a search reads of the list to 32 pages, which was the concern that kept the
 * default list (4 MB) off this index.
 */
export class Migration20261127170000_product_search_text_pending_list extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter index "products_search_text_trgm_index" set (fastupdate = on, gin_pending_list_limit = 256);`);
  }

  async down(): Promise<void> {
    this.addSql(`select gin_clean_pending_list('products_search_text_trgm_index');`);
    this.addSql(`alter index "products_search_text_trgm_index" set (fastupdate = off);`);
    this.addSql(`alter index "products_search_text_trgm_index" reset (gin_pending_list_limit);`);
  }
}
