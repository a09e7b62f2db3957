import { Migration } from '@mikro-orm/migrations';

/**
 * Holiday and special hours (docs/store-locator.md "Holiday and special hours"): dated exceptions to a
 * store's weekly hours, owned like `hours` by the retailer location or, without one, by the CRL. Dates are
 * the store's local dates, both ends inclusive; `hours` holds the opening spans of a day that is not closed.
 * Overlaps are refused by the service (a 422 on the field); the exclusion constraints hold the rule under
 * concurrent writes, checked at commit so that one request may move two exceptions past each other.
 */
export class Migration20261207000100_hour_exceptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create extension if not exists btree_gist;`);
    this.addSql(`create table "hour_exceptions" (
      "id" uuid not null default gen_random_uuid(),
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "retailer_location_id" uuid null references "retailer_locations" ("id") on update cascade on delete cascade,
      "company_retailer_location_id" uuid null references "company_retailer_locations" ("id") on update cascade on delete cascade,
      "starts_on" date not null,
      "ends_on" date not null,
      "closed" boolean not null default true,
      "hours" jsonb not null default '[]',
      "label" varchar(100) null,
      constraint "hour_exceptions_pkey" primary key ("id"),
      constraint "hour_exceptions_owner_check" check (num_nonnulls("retailer_location_id", "company_retailer_location_id") = 1),
      constraint "hour_exceptions_range_check" check ("ends_on" >= "starts_on" and "ends_on" - "starts_on" < 366),
      constraint "hour_exceptions_hours_check" check (jsonb_typeof("hours") = 'array'),
      constraint "hour_exceptions_rl_overlap" exclude using gist ("retailer_location_id" with =, daterange("starts_on", "ends_on", '[]') with &&)
        where ("retailer_location_id" is not null) deferrable initially deferred,
      constraint "hour_exceptions_crl_overlap" exclude using gist ("company_retailer_location_id" with =, daterange("starts_on", "ends_on", '[]') with &&)
        where ("company_retailer_location_id" is not null) deferrable initially deferred);`);
    this.addSql(`create index "hour_exceptions_retailer_location_id_index" on "hour_exceptions" ("retailer_location_id", "starts_on") where "retailer_location_id" is not null;`);
    this.addSql(`create index "hour_exceptions_company_retailer_location_id_index" on "hour_exceptions" ("company_retailer_location_id", "starts_on") where "company_retailer_location_id" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "hour_exceptions";`);
  }
}
