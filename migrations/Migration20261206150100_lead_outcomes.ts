import { Migration } from '@mikro-orm/migrations';

/**
 * Outcomes (issue 42, docs/lead-loop.md "Outcomes"): what became of a lead, `won` or `lost`, recorded by
 * its store (or an integration acting for it) or its owner's admins. At most one per lead: recording
 * again replaces the row (and is a new `lead.outcome_recorded` event). An amount is integer minor units
 * with its ISO 4217 currency (the service checks the code against `Intl.supportedValuesOf('currency')`).
 */
export class Migration20261206150100_lead_outcomes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "lead_outcomes" (
      "lead_id" uuid not null primary key references "leads" ("id") on delete cascade,
      "result" text not null constraint "lead_outcomes_result_check" check ("result" in ('won', 'lost')),
      "amount_minor" bigint null constraint "lead_outcomes_amount_minor_check" check ("amount_minor" >= 0),
      "currency" char(3) null constraint "lead_outcomes_currency_check" check ("currency" ~ '^[A-Z]{3}$'),
      "lost_reason" text null constraint "lead_outcomes_lost_reason_length" check (length("lost_reason") <= 500),
      "closed_on" date not null,
      "recorded_at" timestamptz not null default now(),
      "recorded_by_id" uuid null references "users" ("id") on delete set null,
      constraint "lead_outcomes_amount_currency_check" check ("amount_minor" is null or "currency" is not null));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "lead_outcomes";`);
  }
}
