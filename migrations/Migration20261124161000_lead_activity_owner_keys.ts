import { Migration } from '@mikro-orm/migrations';

/**
 * A lead activity keeps its lead's owner (company or retailer), written by triggers in the transaction
 * of the change, so that the owner admins' activity list (nearly every activity of the owner) is an index
 * range over `lead_activities` and its total an index-only count, without joining every activity to its
 * lead. A lead's owner does not change through the API; a change by hand is carried to its activities.
 */
export class Migration20261124161000_lead_activity_owner_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "lead_activities" add column "owner_company_id" uuid null, add column "owner_retailer_id" uuid null;`);
    this.addSql(`update "lead_activities" la set owner_company_id = l.owner_company_id, owner_retailer_id = l.owner_retailer_id
                   from leads l where l.id = la.lead_id;`);
    this.addSql(`create or replace function leadnet_lead_activity_owner() returns trigger
      language plpgsql as $$
      begin
        select l.owner_company_id, l.owner_retailer_id into NEW.owner_company_id, NEW.owner_retailer_id from leads l where l.id = NEW.lead_id;
        return NEW;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_activity_owner before insert or update of lead_id, owner_company_id, owner_retailer_id
      on lead_activities for each row execute function leadnet_lead_activity_owner();`);
    this.addSql(`create or replace function leadnet_lead_activity_owner_refresh() returns trigger
      language plpgsql as $$
      begin
        update lead_activities la set lead_id = la.lead_id where la.lead_id = NEW.id;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_activity_owner after update of owner_company_id, owner_retailer_id on leads
      for each row when (OLD.owner_company_id is distinct from NEW.owner_company_id or OLD.owner_retailer_id is distinct from NEW.owner_retailer_id)
      execute function leadnet_lead_activity_owner_refresh();`);
    this.addSql(`create index "lead_activities_owner_company_id_list_order_index" on "lead_activities" ("owner_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "lead_activities_owner_retailer_id_list_order_index" on "lead_activities" ("owner_retailer_id", "created_at" desc, "id");`);
    // A lead's activities in list order (its timeline, and the scope branches that go through the lead:
    // an assignee's store, the creator); those exclude the owner branch's rows, so the owner is in the
    // index too and the read is index-only. It replaces the index on (lead_id, created_at).
    this.addSql(`create index "lead_activities_lead_id_list_order_index" on "lead_activities" ("lead_id", "created_at" desc, "id") include ("owner_company_id", "owner_retailer_id");`);
    this.addSql(`drop index if exists "lead_activities_lead_id_created_at_index";`);
    // The planner's estimate of the admins' "assigned to us beyond the owner" branch: without statistics
    // on its expression it guesses 0.5% of the leads, and reads a whole list order to find rows that are
    // not there instead of starting from that branch's partial index.
    this.addSql(`create statistics if not exists "leads_beyond_owner_stats" on
      (case when assignee_company_id is distinct from owner_company_id then assignee_company_id end),
      (case when assignee_retailer_id is distinct from owner_retailer_id then assignee_retailer_id end) from leads;`);
    this.addSql(`analyze "leads";`);
    this.addSql(`analyze "lead_activities";`);
  }

  async down(): Promise<void> {
    this.addSql(`drop statistics if exists "leads_beyond_owner_stats";`);
    this.addSql(`create index if not exists "lead_activities_lead_id_created_at_index" on "lead_activities" ("lead_id", "created_at");`);
    this.addSql(`drop index if exists "lead_activities_lead_id_list_order_index";`);
    this.addSql(`drop index if exists "lead_activities_owner_retailer_id_list_order_index";`);
    this.addSql(`drop index if exists "lead_activities_owner_company_id_list_order_index";`);
    this.addSql(`drop trigger if exists leadnet_lead_activity_owner on leads;`);
    this.addSql(`drop trigger if exists leadnet_lead_activity_owner on lead_activities;`);
    this.addSql(`drop function if exists leadnet_lead_activity_owner_refresh();`);
    this.addSql(`drop function if exists leadnet_lead_activity_owner();`);
    this.addSql(`alter table "lead_activities" drop column if exists "owner_company_id", drop column if exists "owner_retailer_id";`);
  }
}
