import { Migration } from '@mikro-orm/migrations';

/**
 * Adds the key deltas of `deltas` (rows of company_id, retailer_id, n) to their counts: one row per
 * key, in key order, into the transaction's slot of the key.
 */
const addCounts = (deltas: string) => `insert into crl_key_counts as c (field, key, slot, n)
  select field, key, (txid_current() % 16)::smallint, sum(n) from (
    select 'company_id' as field, company_id as key, n from (${deltas}) d where company_id is not null
    union all
    select 'retailer_id', retailer_id, n from (${deltas}) d where retailer_id is not null
  ) k group by field, key having sum(n) <> 0 order by field, key
  on conflict (field, key, slot) do update set n = c.n + excluded.n`;

/**
 * How many company retailer locations each company and each retailer (the retailer of the CRL's
 * retailer location, `crl.retailer_id`) has, kept exact by triggers in the transaction of every
 * insert, delete and key change, so that a company admin's or a retailer admin's unfiltered CRL total is
 * a sum of at most 16 rows instead of an index-only count of every store (100,000 entries: 15-60 ms).
 * The same shape as `lead_counts` (Migration20261124170000_lead_owner_counts); per company retailer,
 * `company_retailer_location_counts` (Migration20261129100000_company_retailer_location_counts): 16 slots per key, a
 * transaction writing to the slot of its transaction id. The key-change trigger has no column list:
 * `retailer_id` is written by the BEFORE trigger `leadnet_crl_retailer`, which a column-specific
 * trigger would not see.
 */
export class Migration20261129120000_crl_key_counts extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "crl_key_counts" (
      "field" text not null, "key" uuid not null, "slot" smallint not null, "n" bigint not null,
      constraint "crl_key_counts_pkey" primary key ("field", "key", "slot"));`);
    this.addSql(`create or replace function leadnet_crl_key_counts() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${addCounts('select company_id, retailer_id, 1 as n from new_rows')};
        else
          ${addCounts('select company_id, retailer_id, -1 as n from old_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_key_counts_insert after insert on company_retailer_locations
      referencing new table as new_rows for each statement execute function leadnet_crl_key_counts();`);
    this.addSql(`create trigger leadnet_crl_key_counts_delete after delete on company_retailer_locations
      referencing old table as old_rows for each statement execute function leadnet_crl_key_counts();`);
    this.addSql(`create or replace function leadnet_crl_key_counts_change() returns trigger
      language plpgsql as $$
      begin
        ${addCounts('select OLD.company_id, OLD.retailer_id, -1 as n union all select NEW.company_id, NEW.retailer_id, 1')};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_key_counts_change after update on company_retailer_locations for each row
      when (OLD.company_id is distinct from NEW.company_id or OLD.retailer_id is distinct from NEW.retailer_id)
      execute function leadnet_crl_key_counts_change();`);
    this.addSql(`insert into crl_key_counts (field, key, slot, n)
      select 'company_id', company_id, 0, count(*) from company_retailer_locations group by company_id
      union all
      select 'retailer_id', retailer_id, 0, count(*) from company_retailer_locations where retailer_id is not null group by retailer_id;`);
  }

  async down(): Promise<void> {
    for (const event of ['insert', 'delete', 'change']) this.addSql(`drop trigger if exists leadnet_crl_key_counts_${event} on company_retailer_locations;`);
    this.addSql(`drop function if exists leadnet_crl_key_counts_change();`);
    this.addSql(`drop function if exists leadnet_crl_key_counts();`);
    this.addSql(`drop table if exists "crl_key_counts";`);
  }
}
