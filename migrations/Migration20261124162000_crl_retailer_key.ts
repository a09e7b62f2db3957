import { Migration } from '@mikro-orm/migrations';

/**
 * A CRL keeps the retailer of its retailer location (null without one), written by triggers in the
 * transaction of the change, so that a retailer's stores are an index range over the CRLs (a retailer
 * admin's CRL list, and the company retailers and leads scoped through them) instead of every CRL
 * joined to its retailer location.
 */
export class Migration20261124162000_crl_retailer_key extends Migration {
  async up(): Promise<void> {
    this.addSql(`alter table "company_retailer_locations" add column "retailer_id" uuid null;`);
    this.addSql(`update "company_retailer_locations" crl set retailer_id = rl.retailer_id from retailer_locations rl where rl.id = crl.retailer_location_id;`);
    this.addSql(`create or replace function leadnet_crl_retailer() returns trigger
      language plpgsql as $$
      begin
        NEW.retailer_id := (select rl.retailer_id from retailer_locations rl where rl.id = NEW.retailer_location_id);
        return NEW;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_retailer before insert or update of retailer_location_id, retailer_id
      on company_retailer_locations for each row execute function leadnet_crl_retailer();`);
    this.addSql(`create or replace function leadnet_crl_retailer_refresh() returns trigger
      language plpgsql as $$
      begin
        update company_retailer_locations crl set retailer_location_id = crl.retailer_location_id where crl.retailer_location_id = NEW.id;
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_crl_retailer after update of retailer_id on retailer_locations
      for each row when (OLD.retailer_id is distinct from NEW.retailer_id) execute function leadnet_crl_retailer_refresh();`);
    this.addSql(`create index "company_retailer_locations_retailer_id_list_order_index" on "company_retailer_locations" ("retailer_id", "created_at" desc, "id");`);
    this.addSql(`analyze "company_retailer_locations";`);
  }

  async down(): Promise<void> {
    this.addSql(`drop index if exists "company_retailer_locations_retailer_id_list_order_index";`);
    this.addSql(`drop trigger if exists leadnet_crl_retailer on retailer_locations;`);
    this.addSql(`drop trigger if exists leadnet_crl_retailer on company_retailer_locations;`);
    this.addSql(`drop function if exists leadnet_crl_retailer_refresh();`);
    this.addSql(`drop function if exists leadnet_crl_retailer();`);
    this.addSql(`alter table "company_retailer_locations" drop column if exists "retailer_id";`);
  }
}
