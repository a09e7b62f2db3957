import { Migration } from '@mikro-orm/migrations';

/** Degrees of latitude and longitude a store locator cell spans (as `cell` below: two cells a degree). */
export const STORE_LOCATOR_CELL_DEGREES = 0.5;

/**
 * Adds the entry deltas of `deltas` (rows of store_locator_entries columns and n) to the kept counts: one
 * row per company, cell, facet and value, in key order.
 */
const addCounts = (deltas: string) => `insert into store_locator_cell_counts as c (company_id, cell, facet, key, n)
  select d.company_id, d.cell, f.facet, f.key, sum(d.n) from (${deltas}) d
   cross join lateral (values ('city', d.city), ('province', d.province), ('country', d.country),
                              ('store_type', d.company_store_type_id::text)) f(facet, key)
   group by d.company_id, d.cell, f.facet, f.key having sum(d.n) <> 0
   order by d.company_id, d.cell, f.facet, f.key
  on conflict (company_id, cell, facet, key) do update set n = c.n + excluded.n`;

/**
 * How many listed stores each half-degree cell holds per city, province, country and store type (a null
 * key counts the stores without one), kept exact by triggers on the store locator's read model in the
 * writing transaction. A wide store locator search reads the counts of the cells wholly inside its circle
 * and checks only the stores of the cells its edge cuts (`store-locator.cells.ts`). `cell` is
 * `lat index * 1024 + lng index`, the indexes counting half degrees from -90 and -180.
 */
export class Migration20261125152000_store_locator_cells extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "store_locator_entries" add column "cell" integer
      generated always as (floor(("latitude" + 90) * 2)::int * 1024 + floor(("longitude" + 180) * 2)::int) stored;`);
    this.addSql(`create index "store_locator_entries_company_id_cell_index" on "store_locator_entries" ("company_id", "cell");`);
    this.addSql(`create table "store_locator_cell_counts" (
      "company_id" uuid not null, "cell" integer not null, "facet" text not null, "key" text null, "n" integer not null,
      constraint "store_locator_cell_counts_key" unique nulls not distinct ("company_id", "cell", "facet", "key"));`);
    this.addSql(`create or replace function leadnet_store_locator_cell_counts() returns trigger
      language plpgsql as $$
      begin
        -- Each branch reads only the transition tables its event has.
        if TG_OP = 'INSERT' then
          ${addCounts('select *, 1 as n from new_rows')};
        elsif TG_OP = 'DELETE' then
          ${addCounts('select *, -1 as n from old_rows')};
        else
          ${addCounts('select *, -1 as n from old_rows union all select *, 1 from new_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "store_locator_cell_counts_insert" after insert on "store_locator_entries"
      referencing new table as new_rows for each statement execute function leadnet_store_locator_cell_counts();`);
    this.addSql(`create trigger "store_locator_cell_counts_update" after update on "store_locator_entries"
      referencing old table as old_rows new table as new_rows for each statement execute function leadnet_store_locator_cell_counts();`);
    this.addSql(`create trigger "store_locator_cell_counts_delete" after delete on "store_locator_entries"
      referencing old table as old_rows for each statement execute function leadnet_store_locator_cell_counts();`);
    this.addSql(`${addCounts('select *, 1 as n from store_locator_entries')};`);
  }

  async down(): Promise<void> {
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "store_locator_cell_counts_${event}" on "store_locator_entries";`);
    this.addSql(`drop function if exists leadnet_store_locator_cell_counts();`);
    this.addSql(`drop table if exists "store_locator_cell_counts";`);
    this.addSql(`drop index if exists "store_locator_entries_company_id_cell_index";`);
    this.addSql(`alter table "store_locator_entries" drop column if exists "cell";`);
  }
}
