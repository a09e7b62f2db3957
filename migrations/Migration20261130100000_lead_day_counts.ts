import { Migration } from '@mikro-orm/migrations';

/** A lead's day: the UTC date of its `created_at`. */
const DAY = `(created_at at time zone 'UTC')::date`;

/**
 * Adds the deltas of `deltas` (rows of owner_company_id, owner_retailer_id, day, n) to their counts: one
 * row per key and day, in key order, into the transaction's slot.
 */
const addCounts = (deltas: string) => `insert into lead_day_counts as c (field, key, day, slot, n)
  select field, key, day, (txid_current() % 16)::smallint, sum(n) from (
    select 'owner_company_id' as field, owner_company_id as key, day, n from (${deltas}) d where owner_company_id is not null
    union all
    select 'owner_retailer_id', owner_retailer_id, day, n from (${deltas}) d where owner_retailer_id is not null
  ) k group by field, key, day having sum(n) <> 0 order by field, key, day
  on conflict (field, key, day, slot) do update set n = c.n + excluded.n`;

/**
 * How many leads each company and each retailer owns per day of creation (UTC), kept exact by triggers
 * in the transaction of every insert, delete, owner change and `created_at` change, as `lead_counts`
 * keeps them per owner (Migration20261124170000_lead_owner_counts: 16 slots per key and day, a
 * transaction writing to its own). An admin's total of a `created_at` range ("the leads of March") sums
 * the days the range covers whole and counts only the leads of its partial first and last days, instead
 * of counting every lead in the range (200,000 of a million). Back-filled after the triggers are created.
 */
export class Migration20261130100000_lead_day_counts extends Migration {
  async up(): Promise<void> {
    this.addSql(`create table "lead_day_counts" (
      "field" text not null, "key" uuid not null, "day" date not null, "slot" smallint not null, "n" bigint not null,
      constraint "lead_day_counts_pkey" primary key ("field", "key", "day", "slot"));`);
    this.addSql(`create or replace function leadnet_lead_day_counts() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${addCounts(`select owner_company_id, owner_retailer_id, ${DAY} as day, 1 as n from new_rows`)};
        else
          ${addCounts(`select owner_company_id, owner_retailer_id, ${DAY} as day, -1 as n from old_rows`)};
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_day_counts_insert after insert on leads
      referencing new table as new_rows for each statement execute function leadnet_lead_day_counts();`);
    this.addSql(`create trigger leadnet_lead_day_counts_delete after delete on leads
      referencing old table as old_rows for each statement execute function leadnet_lead_day_counts();`);
    // An owner or creation time change is rare: a row trigger that fires only then.
    this.addSql(`create or replace function leadnet_lead_day_counts_change() returns trigger
      language plpgsql as $$
      begin
        ${addCounts(
          `select OLD.owner_company_id, OLD.owner_retailer_id, (OLD.created_at at time zone 'UTC')::date as day, -1 as n
           union all select NEW.owner_company_id, NEW.owner_retailer_id, (NEW.created_at at time zone 'UTC')::date, 1`,
        )};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_day_counts_change after update of owner_company_id, owner_retailer_id, created_at on leads for each row
      when (OLD.owner_company_id is distinct from NEW.owner_company_id or OLD.owner_retailer_id is distinct from NEW.owner_retailer_id
            or (OLD.created_at at time zone 'UTC')::date is distinct from (NEW.created_at at time zone 'UTC')::date)
      execute function leadnet_lead_day_counts_change();`);
    this.addSql(`insert into lead_day_counts (field, key, day, slot, n)
      select 'owner_company_id', owner_company_id, ${DAY}, 0, count(*) from leads where owner_company_id is not null group by 2, 3
      union all
      select 'owner_retailer_id', owner_retailer_id, ${DAY}, 0, count(*) from leads where owner_retailer_id is not null group by 2, 3;`);
  }

  async down(): Promise<void> {
    for (const event of ['insert', 'delete', 'change']) this.addSql(`drop trigger if exists leadnet_lead_day_counts_${event} on leads;`);
    this.addSql(`drop function if exists leadnet_lead_day_counts_change();`);
    this.addSql(`drop function if exists leadnet_lead_day_counts();`);
    this.addSql(`drop table if exists "lead_day_counts";`);
  }
}
