import { Migration } from '@mikro-orm/migrations';

/**
 * A store's e-mail and phone number show on its page (Migration20261207000200_store_pages): a change to
 * either, which rewrites the `emails` / `phone_numbers` row the store points at without touching the
 * store, NOTIFYs `leadnet_store_pages` like every other write a page shows, so the page changes within
 * the purge's milliseconds instead of the cache's time to live. Leads' own contacts (`lead_id` set: the
 * bulk of both tables) never notify.
 */
export class Migration20261207000600_store_pages_contacts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function leadnet_store_pages_contacts_changed() returns trigger
      language plpgsql as $$
      begin
        if exists (select 1 from changed where lead_id is null) then perform pg_notify('leadnet_store_pages', ''); end if;
        return null;
      end $$;`);
    for (const table of ['emails', 'phone_numbers']) {
      this.addSql(`create trigger "${table}_store_pages_update" after update on "${table}"
        referencing new table as changed for each statement execute function leadnet_store_pages_contacts_changed();`);
      this.addSql(`create trigger "${table}_store_pages_delete" after delete on "${table}"
        referencing old table as changed for each statement execute function leadnet_store_pages_contacts_changed();`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['emails', 'phone_numbers']) {
      for (const op of ['update', 'delete']) this.addSql(`drop trigger if exists "${table}_store_pages_${op}" on "${table}";`);
    }
    this.addSql(`drop function if exists leadnet_store_pages_contacts_changed();`);
  }
}
