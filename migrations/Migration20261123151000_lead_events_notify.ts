import { Migration } from '@mikro-orm/migrations';

/**
 * Every new lead event (`lead_events`, Migration20261123141000_webhooks) is announced with its id on the
 * `leadnet_lead_events` channel. NOTIFY is delivered at commit, in commit order, to every listening
 * connection: each service process hears every committed event (GraphQL subscriptions, `LeadEventHub`).
 */
export class Migration20261123151000_lead_events_notify extends Migration {
  async up(): Promise<void> {
    this.addSql(`create or replace function leadnet_lead_events_notify() returns trigger
      language plpgsql as $$
      begin
        perform pg_notify('leadnet_lead_events', NEW.id::text);
        return null;
      end $$;`);
    this.addSql(`create trigger leadnet_lead_events_notify after insert on lead_events
      for each row execute function leadnet_lead_events_notify();`);
  }

  async down(): Promise<void> {
    this.addSql(`drop trigger if exists leadnet_lead_events_notify on lead_events;`);
    this.addSql(`drop function if exists leadnet_lead_events_notify();`);
  }
}
