import { Migration } from '@mikro-orm/migrations';

/**
 * A user's own time zone (docs/notifications.md): the daily digest arrives at `NOTIFICATION_DIGEST_HOUR`
 * by the user's wall clock. Null: the zone of the user's store (store staff), else UTC. The service
 * checks the IANA name; the column bounds its length.
 */
export class Migration20261127141000_user_time_zone extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "time_zone" text null constraint "users_time_zone_length" check (length("time_zone") between 1 and 64);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "users" drop column if exists "time_zone";`);
  }
}
