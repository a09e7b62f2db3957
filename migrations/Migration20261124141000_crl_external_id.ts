import { Migration } from '@mikro-orm/migrations';

/**
 * A company's own id for each of its stores (`leadnet import locations` matches rows on it, so a
 * re-import updates instead of duplicating): unique within the company when set. And indexes on the
 * foreign keys to emails, phone numbers and addresses that had none: deleting one of those rows (a
 * re-import replaces a store's) scanned every retailer location and CRL to check nothing refers to it.
 */
const FOREIGN_KEYS = [
  ['retailer_locations', 'general_email_id'],
  ['retailer_locations', 'general_phone_number_id'],
  ['company_retailer_locations', 'general_email_id'],
  ['company_retailer_locations', 'general_phone_number_id'],
  ['company_retailers', 'physical_address_id'],
] as const;

export class Migration20261124141000_crl_external_id extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "company_retailer_locations" add column if not exists "external_id" varchar(255) null;`);
    this.addSql(`create unique index if not exists "crl_company_id_external_id_unique" on "company_retailer_locations" ("company_id", "external_id") where "external_id" is not null;`);
    for (const [table, column] of FOREIGN_KEYS) this.addSql(`create index if not exists "${table}_${column}_index" on "${table}" ("${column}");`);
  }

  async down(): Promise<void> {
    for (const [table, column] of FOREIGN_KEYS) this.addSql(`drop index if exists "${table}_${column}_index";`);
    this.addSql(`drop index if exists "crl_company_id_external_id_unique";`);
    this.addSql(`alter table "company_retailer_locations" drop column if exists "external_id";`);
  }
}
