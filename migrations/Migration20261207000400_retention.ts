import { Migration } from '@mikro-orm/migrations';

/**
 * Retention (docs/personal-data.md "Retention"):
 * - `company_retention_settings`: a company's periods (no row: the defaults). `inactive_lead_months`
 *   null keeps leads; the delivery logs' days are always set.
 * - `leads.erased_at`: when an erasure's `leads` step ran on the lead, so retention passes over leads
 *   already erased (the partial index below holds only the others).
 * - `erasure_jobs.selector` gains `retention` (the jobs the retention job starts).
 * - The indexes retention finds what is due by: a company's leads not erased by their last update, and
 *   visitor confirmations by age.
 */
export class Migration20261207000400_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "company_retention_settings" (
      "company_id" uuid primary key references "companies" ("id") on delete cascade,
      "inactive_lead_months" integer null check ("inactive_lead_months" between 1 and 1200),
      "delivery_log_days" integer not null check ("delivery_log_days" between 1 and 36500),
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now());`);
    this.addSql(`alter table "leads" add column "erased_at" timestamptz null;`);
    this.addSql(`update "leads" l set "erased_at" = e."occurred_at" from "lead_events" e where e."lead_id" = l."id" and e."type" = 'lead.erased';`);
    this.addSql(`create index "leads_retention_index" on "leads" ("owner_company_id", "updated_at", "id") where "erased_at" is null;`);
    this.addSql(`create index "visitor_confirmations_created_at_index" on "visitor_confirmations" ("created_at");`);
    this.addSql(`alter table "erasure_jobs" drop constraint "erasure_jobs_selector_check";`);
    this.addSql(`alter table "erasure_jobs" add constraint "erasure_jobs_selector_check" check ("selector" in ('email', 'phone', 'lead', 'retention'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "erasure_jobs" set "selector" = 'lead' where "selector" = 'retention';`);
    this.addSql(`alter table "erasure_jobs" drop constraint "erasure_jobs_selector_check";`);
    this.addSql(`alter table "erasure_jobs" add constraint "erasure_jobs_selector_check" check ("selector" in ('email', 'phone', 'lead'));`);
    this.addSql(`drop index if exists "visitor_confirmations_created_at_index";`);
    this.addSql(`drop index if exists "leads_retention_index";`);
    this.addSql(`alter table "leads" drop column if exists "erased_at";`);
    this.addSql(`drop table if exists "company_retention_settings";`);
  }
}
