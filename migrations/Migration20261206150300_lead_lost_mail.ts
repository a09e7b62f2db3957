import { Migration } from '@mikro-orm/migrations';

/**
 * The mail telling a store it lost a lead (docs/notifications.md "The lost-lead mail"): a delivery of kind
 * `lead_lost`, written at fan-out of the `lead.assigned` event that moved the lead away from the store, for
 * the users of that store who were sent the lead's own assignment mail.
 */
export class Migration20261206150300_lead_lost_mail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest', 'sla_breached', 'lead_lost'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "notification_deliveries" where "kind" = 'lead_lost';`);
    this.addSql(`alter table "notification_deliveries" drop constraint "notification_deliveries_kind_check";`);
    this.addSql(`alter table "notification_deliveries" add constraint "notification_deliveries_kind_check" check ("kind" in ('lead_assigned', 'digest', 'sla_breached'));`);
  }
}
