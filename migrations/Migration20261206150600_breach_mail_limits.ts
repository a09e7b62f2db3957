import { Migration } from '@mikro-orm/migrations';

/**
 * Breach mails a person keeps reading (docs/notifications.md "Breach mails"): they are opt-in (a user who
 * never chose gets none: `notification_preferences.sla_breached` null reads as `off`, notification.defaults.ts),
 * may come as a daily digest (`daily_digest`), and immediate ones are capped per recipient and hour: the
 * rest wait, queued, and are gathered into one digest at the end of the hour. A digest delivery's `about`
 * names its topic (`{"topic": "sla_breached"}`) so breaches and assignments are never gathered into one mail.
 */
export class Migration20261206150600_breach_mail_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_preferences" drop constraint "notification_preferences_sla_breached_check";`);
    this.addSql(`alter table "notification_preferences" add constraint "notification_preferences_sla_breached_check" check ("sla_breached" in ('immediate', 'daily_digest', 'off'));`);
    this.addSql(`create index "notification_deliveries_user_window_index" on "notification_deliveries" ("user_id", ((about->>'window'))) where "kind" = 'sla_breached' and ("about"->>'window') is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "notification_deliveries_user_window_index";`);
    this.addSql(`update "notification_preferences" set "sla_breached" = 'immediate' where "sla_breached" = 'daily_digest';`);
    this.addSql(`alter table "notification_preferences" drop constraint "notification_preferences_sla_breached_check";`);
    this.addSql(`alter table "notification_preferences" add constraint "notification_preferences_sla_breached_check" check ("sla_breached" in ('immediate', 'off'));`);
  }
}
