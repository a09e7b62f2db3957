import { Migration } from '@mikro-orm/migrations';

const actor = (quiet: boolean) => `create or replace function leadnet_notification_event_actor() returns trigger
      language plpgsql as $$
      begin${
        quiet
          ? `
        -- A write that asked for quiet (the demo seed) queues no notification.
        if current_setting('leadnet.quiet_notifications', true) = 'on' then return null; end if;`
          : ''
      }
        new.actor_id := coalesce(new.actor_id, nullif(current_setting('leadnet.actor_id', true), '')::uuid);
        return new;
      end $$;`;

/**
 * The first start with SMTP configured does not mail the demo network's seeded leads (docs/notifications.md
 * "The demo seed"): a transaction that sets `leadnet.quiet_notifications` to `on` (the demo seed does,
 * src/modules/demo/demo.queries.ts) queues nothing in `notification_events`, so its assignments are never
 * fanned out, whenever SMTP is configured. Every other write is as before.
 */
export class Migration20261206150900_quiet_demo_seed extends Migration {
  override async up(): Promise<void> {
    this.addSql(actor(true));
  }

  override async down(): Promise<void> {
    this.addSql(actor(false));
  }
}
