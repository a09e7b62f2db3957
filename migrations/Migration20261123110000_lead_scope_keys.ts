import { Migration } from '@mikro-orm/migrations';

/** The scope keys a lead keeps of its assignee CRL, as `crlScopeFields` computes them from the CRL. */
const KEYS = ['assignee_company_id', 'assignee_territory_id', 'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id'];

/** The CRL's keys, in KEYS order, for the CRL `crl_id` (all null when there is none). */
const KEYS_OF = (crlId: string) => `
  select a.company_id, coalesce(a.territory_id, a_cr.territory_id), a.company_retailer_id, a_rl.retailer_id, a.retailer_location_id
    from company_retailer_locations a
    left join company_retailers a_cr on a_cr.id = a.company_retailer_id
    left join retailer_locations a_rl on a_rl.id = a.retailer_location_id
   where a.id = ${crlId}`;

/** `(case ...)`: the company / retailer of the assignee when it is not the lead's owner (see lead.search.ts). */
const BEYOND_COMPANY = '(case when assignee_company_id is distinct from owner_company_id then assignee_company_id end)';
const BEYOND_RETAILER = '(case when assignee_retailer_id is distinct from owner_retailer_id then assignee_retailer_id end)';

/**
 * Lead scope as a cheap predicate (issue 10). A lead keeps the keys the role scopes read from its
 * assignee CRL (company, territory, company retailer, retailer, retailer location), written by triggers
 * in the transaction of the change: on the lead when its assignee changes, on the CRL when it is
 * re-pointed, on the company retailer when its territory (inherited by CRLs without their own) changes,
 * on the retailer location when it changes retailer. Every scope is then an index range over `leads`,
 * and each index ends in the list order (`created_at desc, id`), so a page is a range scan plus LIMIT
 * and a total an index-only count.
 */
export class Migration20261123110000_lead_scope_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "leads" ${KEYS.map((k) => `add column "${k}" uuid null`).join(', ')};`);
    this.addSql(`update "leads" l set (${KEYS.join(', ')}) = (${KEYS_OF('l.assignee_id')}) where l.assignee_id is not null;`);

    this.addSql(`create or replace function leadnet_lead_scope_keys() returns trigger
      language plpgsql as $$
      begin
        if NEW.assignee_id is null then
          NEW.assignee_company_id := null; NEW.assignee_territory_id := null; NEW.assignee_company_retailer_id := null;
          NEW.assignee_retailer_id := null; NEW.assignee_retailer_location_id := null;
        else
          select a.company_id, coalesce(a.territory_id, a_cr.territory_id), a.company_retailer_id, a_rl.retailer_id, a.retailer_location_id
            into NEW.assignee_company_id, NEW.assignee_territory_id, NEW.assignee_company_retailer_id, NEW.assignee_retailer_id, NEW.assignee_retailer_location_id
            from company_retailer_locations a
            left join company_retailers a_cr on a_cr.id = a.company_retailer_id
            left join retailer_locations a_rl on a_rl.id = a.retailer_location_id
           where a.id = NEW.assignee_id;
        end if;
        return NEW;
      end $$;`);
    // Every insert, and updates of the assignee or of the keys themselves (a write that sets them by
    // hand gets the true values back).
    this.addSql(`create trigger leadnet_lead_scope_keys before insert or update of assignee_id, ${KEYS.join(', ')} on leads
      for each row execute function leadnet_lead_scope_keys();`);

    // A re-pointed CRL, company retailer or retailer location: the leads assigned under it.
    this.addSql(`create or replace function leadnet_lead_scope_keys_refresh() returns trigger
      language plpgsql as $$
      begin
        if TG_TABLE_NAME = 'company_retailer_locations' then
          update leads l set assignee_id = l.assignee_id where l.assignee_id = NEW.id;
        elsif TG_TABLE_NAME = 'company_retailers' then
          update leads l set assignee_id = l.assignee_id where l.assignee_company_retailer_id = NEW.id;
        else
          update leads l set assignee_id = l.assignee_id where l.assignee_retailer_location_id = NEW.id;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_scope_keys after update of company_id, territory_id, company_retailer_id, retailer_location_id
      on company_retailer_locations for each row when (
        OLD.company_id is distinct from NEW.company_id or OLD.territory_id is distinct from NEW.territory_id
        or OLD.company_retailer_id is distinct from NEW.company_retailer_id or OLD.retailer_location_id is distinct from NEW.retailer_location_id)
      execute function leadnet_lead_scope_keys_refresh();`);
    this.addSql(`create trigger leadnet_lead_scope_keys after update of territory_id on company_retailers
      for each row when (OLD.territory_id is distinct from NEW.territory_id) execute function leadnet_lead_scope_keys_refresh();`);
    this.addSql(`create trigger leadnet_lead_scope_keys after update of retailer_id on retailer_locations
      for each row when (OLD.retailer_id is distinct from NEW.retailer_id) execute function leadnet_lead_scope_keys_refresh();`);

    // One index per scope branch, each ending in the list order; the key columns a branch tests are in
    // its index so that a total is an index-only count.
    this.addSql(`drop index if exists "leads_owner_company_id_index";`);
    this.addSql(`drop index if exists "leads_owner_retailer_id_index";`);
    this.addSql(`drop index if exists "leads_assignee_id_index";`);
    this.addSql(`drop index if exists "leads_created_by_id_index";`);
    this.addSql(`drop index if exists "leads_created_at_index";`);
    this.addSql(`create index "leads_created_at_id_index" on "leads" ("created_at" desc, "id");`);
    this.addSql(`create index "leads_owner_company_id_created_at_index" on "leads" ("owner_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_owner_retailer_id_created_at_index" on "leads" ("owner_retailer_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_created_by_id_created_at_index" on "leads" ("created_by_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_id_created_at_index" on "leads" ("assignee_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_territory_id_created_at_index" on "leads" ("assignee_territory_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_company_retailer_id_created_at_index" on "leads" ("assignee_company_retailer_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_retailer_location_id_created_at_index" on "leads" ("assignee_retailer_location_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_company_id_created_at_index" on "leads" ("assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "leads_assignee_retailer_id_created_at_index" on "leads" ("assignee_retailer_id", "created_at" desc, "id");`);
    // The admins' "assigned to us, owned by someone else" branch: few rows, so partial.
    this.addSql(`create index "leads_assignee_company_beyond_owner_index" on "leads" (${BEYOND_COMPANY}, "created_at" desc, "id") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create index "leads_assignee_retailer_beyond_owner_index" on "leads" (${BEYOND_RETAILER}, "created_at" desc, "id") where ${BEYOND_RETAILER} is not null;`);
    this.addSql(`analyze "leads";`);
  }

  async down(): Promise<void> {
    for (const index of [
      'created_at_id',
      'owner_company_id_created_at',
      'owner_retailer_id_created_at',
      'created_by_id_created_at',
      'assignee_id_created_at',
      'assignee_territory_id_created_at',
      'assignee_company_retailer_id_created_at',
      'assignee_retailer_location_id_created_at',
      'assignee_company_id_created_at',
      'assignee_retailer_id_created_at',
      'assignee_company_beyond_owner',
      'assignee_retailer_beyond_owner',
    ]) {
      this.addSql(`drop index if exists "leads_${index}_index";`);
    }
    this.addSql(`create index "leads_owner_company_id_index" on "leads" ("owner_company_id");`);
    this.addSql(`create index "leads_owner_retailer_id_index" on "leads" ("owner_retailer_id");`);
    this.addSql(`create index "leads_assignee_id_index" on "leads" ("assignee_id");`);
    this.addSql(`create index "leads_created_by_id_index" on "leads" ("created_by_id");`);
    this.addSql(`create index "leads_created_at_index" on "leads" ("created_at");`);
    this.addSql(`drop trigger if exists leadnet_lead_scope_keys on retailer_locations;`);
    this.addSql(`drop trigger if exists leadnet_lead_scope_keys on company_retailers;`);
    this.addSql(`drop trigger if exists leadnet_lead_scope_keys on company_retailer_locations;`);
    this.addSql(`drop trigger if exists leadnet_lead_scope_keys on leads;`);
    this.addSql(`drop function if exists leadnet_lead_scope_keys_refresh();`);
    this.addSql(`drop function if exists leadnet_lead_scope_keys();`);
    this.addSql(`alter table "leads" ${KEYS.map((k) => `drop column if exists "${k}"`).join(', ')};`);
  }
}
