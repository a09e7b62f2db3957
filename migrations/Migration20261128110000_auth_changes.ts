import { Migration } from '@mikro-orm/migrations';

/**
 * The API key cache (src/auth/caller-cache.ts) hears of every change that can change a key's caller:
 * a key revoked, replaced or deleted, a user's role or organisation changed or the user deleted, a scope
 * assignment added or removed. Each such statement NOTIFYs `leadnet_auth_changes` (delivered at commit,
 * to every process), and each process empties its cache. `last_used_at` stamps notify nothing.
 */
export class Migration20261128110000_auth_changes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function leadnet_auth_changed() returns trigger language plpgsql as $$
      begin
        perform pg_notify('leadnet_auth_changes', '');
        return null;
      end $$;`);
    this.addSql(`create trigger api_keys_auth_changed after update of revoked_at, key_hash, user_id or delete or truncate on api_keys
      for each statement execute function leadnet_auth_changed();`);
    this.addSql(`create trigger users_auth_changed after update of role, company_id, retailer_id, territory_id, id or delete or truncate on users
      for each statement execute function leadnet_auth_changed();`);
    for (const table of ['user_company_retailers', 'user_company_retailer_locations', 'user_retailer_locations']) {
      this.addSql(`create trigger ${table}_auth_changed after insert or update or delete or truncate on ${table}
        for each statement execute function leadnet_auth_changed();`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['api_keys', 'users', 'user_company_retailers', 'user_company_retailer_locations', 'user_retailer_locations']) {
      this.addSql(`drop trigger if exists ${table}_auth_changed on ${table};`);
    }
    this.addSql('drop function if exists leadnet_auth_changed();');
  }
}
