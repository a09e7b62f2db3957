import { Migration } from '@mikro-orm/migrations';

/**
 * Adds the owner deltas of `deltas` (rows of owner_company_id, owner_retailer_id, n) to their counts:
 * one row per key, in key order, into the transaction's slot of the key.
 */
const addCounts = (deltas: string) => `insert into lead_activity_counts as c (field, key, slot, n)
  select field, key, (txid_current() % 16)::smallint, sum(n) from (
    select 'owner_company_id' as field, owner_company_id as key, n from (${deltas}) d where owner_company_id is not null
    union all
    select 'owner_retailer_id', owner_retailer_id, n from (${deltas}) d where owner_retailer_id is not null
  ) k group by field, key having sum(n) <> 0 order by field, key
  on conflict (field, key, slot) do update set n = c.n + excluded.n`;

/**
 * How many lead activities each company and each retailer owns (the owner keys the activity keeps of
 * its lead, Migration20261124161000_lead_activity_owner_keys), kept exact by triggers in the transaction
 * of every insert, delete and owner change, as `lead_counts` keeps the leads': an owner admin's unfiltered
 * activity total is a sum of at most 16 rows instead of an index-only count of nearly every activity of
 * the owner (200,000 entries: 40-100 ms a page). A lead's owner change reaches its activities through
 * the `lead_id` update of `leadnet_lead_activity_owner_refresh`, whose BEFORE trigger sets the new owner
 * keys: the count trigger fires on `lead_id` too and compares the owners. Back-filled after the
 * triggers are created (their lock on `lead_activities` holds every write back until the migration commits).
 */
export class Migration20261129110000_lead_activity_owner_counts extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "lead_activity_counts" (
      "field" text not null, "key" uuid not null, "slot" smallint not null, "n" bigint not null,
      constraint "lead_activity_counts_pkey" primary key ("field", "key", "slot"));`);
    this.addSql(`create or replace function leadnet_lead_activity_counts() returns trigger
      language plpgsql as $$
      begin
        -- Each branch reads only the transition table its event has.
        if TG_OP = 'INSERT' then
          ${addCounts('select owner_company_id, owner_retailer_id, 1 as n from new_rows')};
        else
          ${addCounts('select owner_company_id, owner_retailer_id, -1 as n from old_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_activity_counts_insert after insert on lead_activities
      referencing new table as new_rows for each statement execute function leadnet_lead_activity_counts();`);
    this.addSql(`create trigger leadnet_lead_activity_counts_delete after delete on lead_activities
      referencing old table as old_rows for each statement execute function leadnet_lead_activity_counts();`);
    this.addSql(`create or replace function leadnet_lead_activity_counts_owner() returns trigger
      language plpgsql as $$
      begin
        ${addCounts('select OLD.owner_company_id, OLD.owner_retailer_id, -1 as n union all select NEW.owner_company_id, NEW.owner_retailer_id, 1')};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_activity_counts_owner after update of lead_id, owner_company_id, owner_retailer_id on lead_activities for each row
      when (OLD.owner_company_id is distinct from NEW.owner_company_id or OLD.owner_retailer_id is distinct from NEW.owner_retailer_id)
      execute function leadnet_lead_activity_counts_owner();`);
    this.addSql(`insert into lead_activity_counts (field, key, slot, n)
      select 'owner_company_id', owner_company_id, 0, count(*) from lead_activities where owner_company_id is not null group by owner_company_id
      union all
      select 'owner_retailer_id', owner_retailer_id, 0, count(*) from lead_activities where owner_retailer_id is not null group by owner_retailer_id;`);
  }

  async down(): Promise<void> {
    for (const event of ['insert', 'delete', 'owner']) this.addSql(`drop trigger if exists leadnet_lead_activity_counts_${event} on lead_activities;`);
    this.addSql(`drop function if exists leadnet_lead_activity_counts_owner();`);
    this.addSql(`drop function if exists leadnet_lead_activity_counts();`);
    this.addSql(`drop table if exists "lead_activity_counts";`);
  }
}
