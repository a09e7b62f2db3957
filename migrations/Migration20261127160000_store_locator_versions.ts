import { Migration } from '@mikro-orm/migrations';

/** Bumps the version of every company the statement's rows (`rows`, a transition table query) belong to, in company order. */
const bump = (rows: string) => `insert into store_locator_versions as v (company_id, version)
  select company_id, 1 from (${rows}) r group by company_id order by company_id
  on conflict (company_id) do update set version = v.version + 1`;

/**
 * A version per company of its listed stores (`store_locator_entries`), bumped by every statement that
 * changes them, in the writing transaction. The row lock orders the writers of a company, so versions
 * follow commit order: two snapshots that read the same version see the same entries. A copy of a
 * company's entries held in memory (`store-locator.held.ts`) is used by a search only when the search's
 * own statement reads the version the copy was read with. A company without a row is at version 0.
 */
export class Migration20261127160000_store_locator_versions extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "store_locator_versions" (
      "company_id" uuid not null, "version" bigint not null,
      constraint "store_locator_versions_pkey" primary key ("company_id"));`);
    this.addSql(`create or replace function leadnet_store_locator_version() returns trigger
      language plpgsql as $$
      begin
        -- Each branch reads only the transition tables its event has.
        if TG_OP = 'INSERT' then
          ${bump('select company_id from new_rows')};
        elsif TG_OP = 'DELETE' then
          ${bump('select company_id from old_rows')};
        else
          ${bump('select company_id from old_rows union all select company_id from new_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "store_locator_version_insert" after insert on "store_locator_entries"
      referencing new table as new_rows for each statement execute function leadnet_store_locator_version();`);
    this.addSql(`create trigger "store_locator_version_update" after update on "store_locator_entries"
      referencing old table as old_rows new table as new_rows for each statement execute function leadnet_store_locator_version();`);
    this.addSql(`create trigger "store_locator_version_delete" after delete on "store_locator_entries"
      referencing old table as old_rows for each statement execute function leadnet_store_locator_version();`);
    this.addSql(`insert into store_locator_versions (company_id, version) select distinct company_id, 1 from store_locator_entries;`);
  }

  async down(): Promise<void> {
    for (const event of ['insert', 'update', 'delete']) this.addSql(`drop trigger if exists "store_locator_version_${event}" on "store_locator_entries";`);
    this.addSql(`drop function if exists leadnet_store_locator_version();`);
    this.addSql(`drop table if exists "store_locator_versions";`);
  }
}
