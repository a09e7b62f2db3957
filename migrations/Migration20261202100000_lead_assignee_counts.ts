import { Migration } from '@mikro-orm/migrations';

/** The `within_key` of a count whose key is one field. */
const NONE = `'00000000-0000-0000-0000-000000000000'::uuid`;

/**
 * Adds the key deltas of `deltas` (rows of field, within_key, key, n) to their counts: one row per key,
 * in key order, into the transaction's slot of the key.
 */
const addCounts = (deltas: string) => `insert into lead_counts as c (field, within_key, key, slot, n)
  select field, within_key, key, (txid_current() % 16)::smallint, sum(n) from (${deltas}) d
   group by field, within_key, key having sum(n) <> 0 order by field, within_key, key
  on conflict (field, within_key, key, slot) do update set n = c.n + excluded.n`;

/** The counted keys of a lead row, as `leadnet_lead_count_keys` returns them. */
const COUNTED = ['owner_company_id', 'owner_retailer_id', 'assignee_company_id', 'assignee_territory_id', 'assignee_company_retailer_id', 'assignee_retailer_id'];

/**
 * Leads counted per assignee scope, next to the per-owner counts of `lead_counts`
 * (Migration20261124170000_lead_owner_counts), so that every admin's and every manager's unfiltered lead
 * total is a sum of kept rows instead of an index-only count of its leads (a territory manager's 60,000
 * of a million leads: 16 ms):
 * - `assignee_company_beyond_owner_id`, `assignee_retailer_beyond_owner_id`: the admins' second scope
 *   branch, "assigned to us, owned by someone else";
 * - `assignee_company_id,assignee_territory_id` and `assignee_company_id,assignee_company_retailer_id`:
 *   a territory manager's and a retailer manager's scope, two keys each (`within_key` the company,
 *   `key` the territory or company retailer).
 *
 * Which keys a lead counts under is one function, `leadnet_lead_count_keys`, read by the triggers, the
 * back-fill here and the bulk seed. The assignee keys are written by the BEFORE trigger
 * `leadnet_lead_scope_keys`, also when a CRL, a company retailer or a retailer location is re-pointed
 * (an update of the leads under it), so the change trigger has no column list (a column-specific
 * trigger would not see them) and fires only when a counted key changes.
 */
export class Migration20261202100000_lead_assignee_counts extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "lead_counts" drop constraint "lead_counts_pkey",
      add column "within_key" uuid not null default ${NONE},
      add constraint "lead_counts_pkey" primary key ("field", "within_key", "key", "slot");`);
    this.addSql(`create or replace function leadnet_lead_count_keys(l leads) returns table (field text, within_key uuid, key uuid)
      language sql immutable as $$
        select k.field, k.within_key, k.key from (values
          ('owner_company_id', ${NONE}, l.owner_company_id),
          ('owner_retailer_id', ${NONE}, l.owner_retailer_id),
          ('assignee_company_beyond_owner_id', ${NONE},
           case when l.assignee_company_id is distinct from l.owner_company_id then l.assignee_company_id end),
          ('assignee_retailer_beyond_owner_id', ${NONE},
           case when l.assignee_retailer_id is distinct from l.owner_retailer_id then l.assignee_retailer_id end),
          ('assignee_company_id,assignee_territory_id', l.assignee_company_id, l.assignee_territory_id),
          ('assignee_company_id,assignee_company_retailer_id', l.assignee_company_id, l.assignee_company_retailer_id)
        ) k (field, within_key, key)
        where k.within_key is not null and k.key is not null
      $$;`);
    this.addSql(`create or replace function leadnet_lead_counts() returns trigger
      language plpgsql as $$
      begin
        -- Each branch reads only the transition table its event has.
        if TG_OP = 'INSERT' then
          ${addCounts('select k.*, 1 as n from new_rows r cross join lateral leadnet_lead_count_keys(r) k')};
        else
          ${addCounts('select k.*, -1 as n from old_rows r cross join lateral leadnet_lead_count_keys(r) k')};
        end if;
        return null;
      end $$;`);
    this.addSql(`drop trigger "leadnet_lead_counts_owner" on "leads";`);
    this.addSql(`drop function leadnet_lead_counts_owner();`);
    this.addSql(`create or replace function leadnet_lead_counts_change() returns trigger
      language plpgsql as $$
      begin
        ${addCounts('select k.*, -1 as n from leadnet_lead_count_keys(OLD) k union all select k.*, 1 from leadnet_lead_count_keys(NEW) k')};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_counts_change after update on leads for each row
      when ((${COUNTED.map((c) => `OLD.${c}`).join(', ')}) is distinct from (${COUNTED.map((c) => `NEW.${c}`).join(', ')}))
      execute function leadnet_lead_counts_change();`);
    // Counted again under the lock the triggers' creation took on `leads`.
    this.addSql(`delete from lead_counts;`);
    this.addSql(`insert into lead_counts (field, within_key, key, slot, n)
      select k.field, k.within_key, k.key, 0, count(*) from leads l cross join lateral leadnet_lead_count_keys(l) k group by 1, 2, 3;`);
  }

  async down(): Promise<void> {
    this.addSql(`drop trigger if exists leadnet_lead_counts_change on leads;`);
    this.addSql(`drop function if exists leadnet_lead_counts_change();`);
    this.addSql(`delete from lead_counts where field not in ('owner_company_id', 'owner_retailer_id');`);
    this.addSql(`alter table "lead_counts" drop constraint "lead_counts_pkey", drop column "within_key",
      add constraint "lead_counts_pkey" primary key ("field", "key", "slot");`);
    const ownerCounts = (deltas: string) => `insert into lead_counts as c (field, key, slot, n)
      select field, key, (txid_current() % 16)::smallint, sum(n) from (
        select 'owner_company_id' as field, owner_company_id as key, n from (${deltas}) d where owner_company_id is not null
        union all
        select 'owner_retailer_id', owner_retailer_id, n from (${deltas}) d where owner_retailer_id is not null
      ) k group by field, key having sum(n) <> 0 order by field, key
      on conflict (field, key, slot) do update set n = c.n + excluded.n`;
    this.addSql(`create or replace function leadnet_lead_counts() returns trigger
      language plpgsql as $$
      begin
        if TG_OP = 'INSERT' then
          ${ownerCounts('select owner_company_id, owner_retailer_id, 1 as n from new_rows')};
        else
          ${ownerCounts('select owner_company_id, owner_retailer_id, -1 as n from old_rows')};
        end if;
        return null;
      end $$;`);
    this.addSql(`create or replace function leadnet_lead_counts_owner() returns trigger
      language plpgsql as $$
      begin
        ${ownerCounts('select OLD.owner_company_id, OLD.owner_retailer_id, -1 as n union all select NEW.owner_company_id, NEW.owner_retailer_id, 1')};
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_counts_owner after update of owner_company_id, owner_retailer_id on leads for each row
      when (OLD.owner_company_id is distinct from NEW.owner_company_id or OLD.owner_retailer_id is distinct from NEW.owner_retailer_id)
      execute function leadnet_lead_counts_owner();`);
    this.addSql(`drop function if exists leadnet_lead_count_keys(leads);`);
  }
}
