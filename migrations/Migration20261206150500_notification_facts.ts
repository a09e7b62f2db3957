import { Migration } from '@mikro-orm/migrations';

/**
 * A mail says what happened as it was (docs/notifications.md "What a mail says"):
 * - `notification_deliveries.about`: the facts of the assignment or breach a delivery is about, copied at
 *   fan-out from its event and the assignment's activity (the store, its name, the time, the reason, the
 *   store it came from), so a mail sent after the lead moved on still names its own store and time.
 * - `notification_events.actor_id`: the user whose write made the event (`leadnet.actor_id` of its
 *   transaction, src/db/write.ts; null for the system's own writes), so nobody is mailed about their own
 *   action. Set by a row trigger of its own, whatever function fills the queue.
 */
export class Migration20261206150500_notification_facts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_deliveries" add column "about" jsonb null;`);
    this.addSql(`alter table "notification_events" add column "actor_id" uuid null;`);
    this.addSql(`create or replace function leadnet_notification_event_actor() returns trigger
      language plpgsql as $$
      begin
        new.actor_id := coalesce(new.actor_id, nullif(current_setting('leadnet.actor_id', true), '')::uuid);
        return new;
      end $$;`);
    this.addSql(`create trigger "notification_events_actor" before insert on "notification_events"
      for each row execute function leadnet_notification_event_actor();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "notification_events_actor" on "notification_events";`);
    this.addSql(`drop function if exists leadnet_notification_event_actor();`);
    this.addSql(`alter table "notification_events" drop column if exists "actor_id";`);
    this.addSql(`alter table "notification_deliveries" drop column if exists "about";`);
  }
}
