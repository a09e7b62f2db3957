import { Migration } from '@mikro-orm/migrations';

/**
 * Adds the deltas of `deltas` (rows of company_retailer_id and n) to their counts: one row per company
 * retailer that still exists (a company's deletion cascades to its company retailers and to their
 * CRLs, in either order), in key order, into the transaction's slot of the key.
 */
const addCounts = (deltas: string) => `insert into company_retailer_location_counts as c (company_retailer_id, slot, n)
  select d.company_retailer_id, (txid_current() % 16)::smallint, sum(d.n) from (${deltas}) d
   where exists (select 1 from company_retailers cr where cr.id = d.company_retailer_id)
   group by d.company_retailer_id having sum(d.n) <> 0 order by d.company_retailer_id
  on conflict (company_retailer_id, slot) do update set n = c.n + excluded.n`;

/**
 * How many company retailer locations each company retailer has, kept exact by triggers in the
 * transaction of every insert, delete and move of a CRL to another company retailer, so that a company
 * admin's `retailer_locations_count` (every CRL under a company retailer it sees) is a sum of at most 16
 * rows instead of a count of every CRL under it (2,000 stores: an index-only scan of 2,000 entries).
 * Kept in a table of its own, not in a column of company_retailers: an update of a company retailer row
 * fires the routing refresh of every CRL under it and the search outbox of its documents.
 * A key's count is spread over 16 slots, a transaction writing to the slot of its transaction id, as the
 * lead counts (Migration20261124170000_lead_owner_counts); its rows go with the company retailer.
 * Back-filled here, after the triggers are created: their lock on `company_retailer_locations` holds
 * every write back until the migration commits.
 */
export class Migration20261129100000_company_retailer_location_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "company_retailer_location_counts" (
      "company_retailer_id" uuid not null references "company_retailers" ("id") on delete cascade,
      "slot" smallint not null, "n" bigint not null,
      constraint "company_retailer_location_counts_pkey" primary key ("company_retailer_id", "slot"));`);
    this.addSql(`create or replace function leadnet_crl_counts() returns trigger
      language plpgsql as $$
      begin
        -- Each branch reads only the transition table its event has.
        if TG_OP = 'INSERT' then
          ${addCounts('select company_retailer_id, 1 as n from new_rows')};
        else
          ${addCounts('select company_retailer_id, -1 as n from old_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_counts_insert after insert on company_retailer_locations
      referencing new table as new_rows for each statement execute function leadnet_crl_counts();`);
    this.addSql(`create trigger leadnet_crl_counts_delete after delete on company_retailer_locations
      referencing old table as old_rows for each statement execute function leadnet_crl_counts();`);
    // A move to another company retailer is rare: a row trigger that fires only then.
    this.addSql(`create or replace function leadnet_crl_counts_move() returns trigger
      language plpgsql as $$
      begin
        ${addCounts('select OLD.company_retailer_id, -1 as n union all select NEW.company_retailer_id, 1')};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_counts_move after update of company_retailer_id on company_retailer_locations for each row
      when (OLD.company_retailer_id is distinct from NEW.company_retailer_id)
      execute function leadnet_crl_counts_move();`);
    this.addSql(`insert into company_retailer_location_counts (company_retailer_id, slot, n)
      select company_retailer_id, 0, count(*) from company_retailer_locations group by company_retailer_id;`);
  }

  override async down(): Promise<void> {
    for (const event of ['insert', 'delete', 'move']) this.addSql(`drop trigger if exists leadnet_crl_counts_${event} on company_retailer_locations;`);
    this.addSql(`drop function if exists leadnet_crl_counts_move();`);
    this.addSql(`drop function if exists leadnet_crl_counts();`);
    this.addSql(`drop table if exists "company_retailer_location_counts";`);
  }
}
