import { Migration } from '@mikro-orm/migrations';

/** A lead's assignee keys (Migration20261123110000_lead_scope_keys), as a lead activity keeps them too. */
const KEYS = ['assignee_id', 'assignee_company_id', 'assignee_territory_id', 'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id'];
const OWNER_KEYS = ['owner_company_id', 'owner_retailer_id'];
const BEYOND_COMPANY = '(case when assignee_company_id is distinct from owner_company_id then assignee_company_id end)';
const BEYOND_RETAILER = '(case when assignee_retailer_id is distinct from owner_retailer_id then assignee_retailer_id end)';

/**
 * A lead activity keeps its lead's assignee keys beside its owner (Migration20261124161000), written by
 * the same triggers in the transaction of the change, so that every role's activity list is an index
 * range over `lead_activities` like its lead list over `leads`: the store roles' branches and the admins'
 * "assigned to our stores beyond the owner" no longer join every activity to its lead.
 */
export class Migration20261124171000_lead_activity_assignee_keys extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "lead_activities" ${KEYS.map((k) => `add column "${k}" uuid null`).join(', ')};`);
    this.addSql(`update "lead_activities" la set ${KEYS.map((k) => `${k} = l.${k}`).join(', ')} from leads l where l.id = la.lead_id;`);
    const copied = [...OWNER_KEYS, ...KEYS];
    this.addSql(`create or replace function leadnet_lead_activity_owner() returns trigger
      language plpgsql as $$
      begin
        select ${copied.map((k) => `l.${k}`).join(', ')} into ${copied.map((k) => `NEW.${k}`).join(', ')} from leads l where l.id = NEW.lead_id;
        return NEW;
      end $$;`);
    this.addSql(`drop trigger if exists leadnet_lead_activity_owner on lead_activities;`);
    this.addSql(`create trigger leadnet_lead_activity_owner before insert or update of lead_id, ${copied.join(', ')}
      on lead_activities for each row execute function leadnet_lead_activity_owner();`);
    // The keys of a lead move when its assignee changes, or when the store it is assigned to moves (the
    // lead's own triggers then re-set its assignee, which names `assignee_id` in the update).
    this.addSql(`create trigger leadnet_lead_activity_assignee after update of ${KEYS.join(', ')} on leads
      for each row when ((${KEYS.map((k) => `OLD.${k}`).join(', ')}) is distinct from (${KEYS.map((k) => `NEW.${k}`).join(', ')}))
      execute function leadnet_lead_activity_owner_refresh();`);
    this.addSql(`create index "lead_activities_assignee_id_list_order_index" on "lead_activities" ("assignee_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "lead_activities_assignee_territory_id_list_order_index" on "lead_activities" ("assignee_territory_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "lead_activities_assignee_company_retailer_id_list_order_index" on "lead_activities" ("assignee_company_retailer_id", "assignee_company_id", "created_at" desc, "id");`);
    this.addSql(`create index "lead_activities_assignee_retailer_location_id_list_order_index" on "lead_activities" ("assignee_retailer_location_id", "created_at" desc, "id");`);
    this.addSql(`create index "lead_activities_assignee_company_beyond_owner_index" on "lead_activities" (${BEYOND_COMPANY}, "created_at" desc, "id") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create index "lead_activities_assignee_retailer_beyond_owner_index" on "lead_activities" (${BEYOND_RETAILER}, "created_at" desc, "id") where ${BEYOND_RETAILER} is not null;`);
    // As on leads: the planner's estimate of the beyond-the-owner branches (Migration20261124161000).
    this.addSql(`create statistics if not exists "lead_activities_beyond_owner_stats" on ${BEYOND_COMPANY}, ${BEYOND_RETAILER} from lead_activities;`);
    this.addSql(`analyze "lead_activities";`);
  }

  async down(): Promise<void> {
    this.addSql(`drop statistics if exists "lead_activities_beyond_owner_stats";`);
    for (const index of ['assignee_id_list_order', 'assignee_territory_id_list_order', 'assignee_company_retailer_id_list_order', 'assignee_retailer_location_id_list_order', 'assignee_company_beyond_owner', 'assignee_retailer_beyond_owner']) {
      this.addSql(`drop index if exists "lead_activities_${index}_index";`);
    }
    this.addSql(`drop trigger if exists leadnet_lead_activity_assignee on leads;`);
    this.addSql(`drop trigger if exists leadnet_lead_activity_owner on lead_activities;`);
    this.addSql(`create or replace function leadnet_lead_activity_owner() returns trigger
      language plpgsql as $$
      begin
        select l.owner_company_id, l.owner_retailer_id into NEW.owner_company_id, NEW.owner_retailer_id from leads l where l.id = NEW.lead_id;
        return NEW;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_activity_owner before insert or update of lead_id, owner_company_id, owner_retailer_id
      on lead_activities for each row execute function leadnet_lead_activity_owner();`);
    this.addSql(`alter table "lead_activities" ${KEYS.map((k) => `drop column if exists "${k}"`).join(', ')};`);
  }
}
