import { Migration } from '@mikro-orm/migrations';

/**
 * A company retailer's `retailer_locations_count` as a company user sees it (its CRLs of the caller's
 * company, `visibleCountLoader`) is counted from this index alone (an index-only scan), not from the CRL
 * rows: a company retailers page of a brand with 2,000 stores per dealer counted 100,000 rows through
 * the heap per request.
 */
export class Migration20261126150000_crl_company_retailer_company_index extends Migration {
  async up(): Promise<void> {
    this.addSql(`create index if not exists "crl_company_retailer_company_index" on "company_retailer_locations" ("company_retailer_id", "company_id");`);
  }

  async down(): Promise<void> {
    this.addSql(`drop index if exists "crl_company_retailer_company_index";`);
  }
}
