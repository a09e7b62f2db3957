import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes of the store locator: a GiST index on the earth position of every placed address (radius and
 * box searches prefilter with `earth_box`), and the address foreign keys the search joins on.
 */
export class Migration20261122010600_store_locator extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "locations_earth_index" on "locations" using gist (ll_to_earth("latitude", "longitude")) where "latitude" is not null and "longitude" is not null;`,
    );
    this.addSql(`create index "retailer_locations_physical_address_id_index" on "retailer_locations" ("physical_address_id");`);
    this.addSql(`create index "company_retailer_locations_physical_address_id_index" on "company_retailer_locations" ("physical_address_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "company_retailer_locations_physical_address_id_index";`);
    this.addSql(`drop index if exists "retailer_locations_physical_address_id_index";`);
    this.addSql(`drop index if exists "locations_earth_index";`);
  }
}
