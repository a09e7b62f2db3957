import { Migration } from '@mikro-orm/migrations';

/**
 * A company's own id for each of its stores (`leadnet import locations` matches rows on it, so a
 * re-import updates instead of duplicating): unique within the company when set.
 */
export class Migration20261124141000_crl_external_id extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "company_retailer_locations" add column if not exists "external_id" varchar(255) null;`);
    this.addSql(`create unique index if not exists "crl_company_id_external_id_unique" on "company_retailer_locations" ("company_id", "external_id") where "external_id" is not null;`);
  }

  async down(): Promise<void> {
    this.addSql(`drop index if exists "crl_company_id_external_id_unique";`);
    this.addSql(`alter table "company_retailer_locations" drop column if exists "external_id";`);
  }
}
