import { Migration } from '@mikro-orm/migrations';

/**
 * What visitors searched for in the public store locator (docs/locator-demand.md): counts per company,
 * UTC day, coarse cell (a 0.1 degree grid: `lat_cell` = floor((latitude + 90) * 10), `lng_cell` =
 * floor((longitude + 180) * 10)), product asked for and outcome. No IP address, user agent, address text
 * or exact point is kept: a row is a count. `product` is `''` on the row that counts every search, `'*'`
 * on the one counting searches that asked for any product, and `<key>:<value>` (`sku:BIKE-1`) per product
 * asked for. The flusher adds to a row (`searches = searches + excluded.searches`); the primary key
 * serves the reads (company, then day range) and the conflict target; `day` serves the retention delete.
 */
export class Migration20261207000300_locator_demand extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "locator_demand" (
      "company_id" uuid not null references "companies" ("id") on delete cascade,
      "day" date not null,
      "lat_cell" smallint not null check ("lat_cell" between 0 and 1799),
      "lng_cell" smallint not null check ("lng_cell" between 0 and 3599),
      "product" text not null check (length("product") <= 300),
      "outcome" text not null check ("outcome" in ('found', 'none', 'far')),
      "searches" bigint not null default 0,
      "results" bigint not null default 0,
      "nearest_under_5km" bigint not null default 0,
      "nearest_under_10km" bigint not null default 0,
      "nearest_under_25km" bigint not null default 0,
      "nearest_under_50km" bigint not null default 0,
      "nearest_under_100km" bigint not null default 0,
      "nearest_over_100km" bigint not null default 0,
      constraint "locator_demand_pkey" primary key ("company_id", "day", "lat_cell", "lng_cell", "product", "outcome"));`);
    this.addSql(`create index "locator_demand_day_index" on "locator_demand" ("day");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "locator_demand";`);
  }
}
