import { Migration } from '@mikro-orm/migrations';

/** A retailer location is linked to at most one CRL of a company retailer (a second one would be a duplicate store). */
export class Migration20261122010500_crl_retailer_location_unique extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "company_retailer_locations" add constraint "crl_company_retailer_retailer_location_unique" unique ("company_retailer_id", "retailer_location_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "company_retailer_locations" drop constraint "crl_company_retailer_retailer_location_unique";`);
  }
}
