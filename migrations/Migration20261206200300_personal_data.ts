import { Migration } from '@mikro-orm/migrations';

const EVENT_TYPES_BEFORE = [
  'lead.created', 'lead.updated', 'lead.assigned', 'lead.status_changed', 'lead.merged', 'lead_activity.created', 'lead.sla_breached',
  'lead.offered', 'lead.accepted', 'lead.declined', 'lead.offer_expired', 'lead.outcome_recorded',
];

const typeCheck = (types: string[]) => `check ("type" = any (array[${types.map((t) => `'${t}'`).join(', ')}]::text[]))`;

/**
 * Personal data (docs/personal-data.md "Access" and "Erasure"):
 * - `erasure_jobs`: one erasure of a person in a company, run step by step (src/modules/personal-data):
 *   the leads it erases are fixed when it starts (`lead_ids`), each step commits with its name added to
 *   `steps_done`, so a job interrupted between steps resumes with the next one.
 * - `erasure_ledger`: what an erasure erased, as ids and SHA-256 hashes of the normalised e-mails and
 *   phone numbers only (never the values), so that `leadnet personal-data reapply-erasures` can erase
 *   them again in a database restored from a backup taken before.
 * - `lead.erased`, the event partners hear (ids only).
 * - The indexes an erasure and an export look rows up by: notification deliveries and visitor
 *   confirmations by lead.
 */
export class Migration20261206200300_personal_data extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "erasure_jobs" (
      "id" uuid primary key default gen_random_uuid(),
      "company_id" uuid not null references "companies" ("id") on delete cascade,
      "selector" text not null check ("selector" in ('email', 'phone', 'lead')),
      "lead_ids" uuid[] not null,
      "email_hashes" text[] not null default '{}',
      "phone_hashes" text[] not null default '{}',
      "steps_done" text[] not null default '{}',
      "status" text not null default 'running' check ("status" in ('running', 'done')),
      "attempts" integer not null default 0,
      "last_error" text null,
      "requested_by" text null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "finished_at" timestamptz null);`);
    this.addSql(`create index "erasure_jobs_running_index" on "erasure_jobs" ("created_at") where "status" = 'running';`);
    this.addSql(`create index "erasure_jobs_company_index" on "erasure_jobs" ("company_id", "created_at" desc);`);
    this.addSql(`create table "erasure_ledger" (
      "seq" bigserial primary key,
      "job_id" uuid not null,
      "company_id" uuid not null,
      "lead_ids" uuid[] not null,
      "email_hashes" text[] not null default '{}',
      "phone_hashes" text[] not null default '{}',
      "erased_at" timestamptz not null default now(),
      constraint "erasure_ledger_job_unique" unique ("job_id"));`);
    this.addSql(`create index "notification_deliveries_lead_id_index" on "notification_deliveries" ("lead_id") where "lead_id" is not null;`);
    this.addSql(`create index "visitor_confirmations_lead_id_index" on "visitor_confirmations" ("lead_id");`);
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" ${typeCheck([...EVENT_TYPES_BEFORE, 'lead.erased'])};`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "lead_events" where "type" = 'lead.erased';`);
    this.addSql(`alter table "lead_events" drop constraint "lead_events_type_check";`);
    this.addSql(`alter table "lead_events" add constraint "lead_events_type_check" ${typeCheck(EVENT_TYPES_BEFORE)};`);
    this.addSql(`drop index if exists "visitor_confirmations_lead_id_index";`);
    this.addSql(`drop index if exists "notification_deliveries_lead_id_index";`);
    this.addSql(`drop table if exists "erasure_ledger";`);
    this.addSql(`drop table if exists "erasure_jobs";`);
  }
}
