import { Migration } from '@mikro-orm/migrations';

/**
 * Visitors ask a store (docs/lead-loop.md "Visitors ask a store"):
 * - `site_keys`: a company's publishable keys (`pk_` + 32 url-safe characters, embedded in pages, never an
 *   API key), each bound to at most 20 exact origins; revoked keys stay (`revoked_at`).
 * - `altcha_spent`: the proof-of-work challenges already used (their signature), kept until they expire,
 *   so a solved challenge is accepted once (insert on conflict).
 * - `service_secrets`: secrets the service generates for itself when none is configured (the ALTCHA HMAC
 *   key), so restarts and replicas agree.
 * - `lead_consents`: what a person agreed to (purpose, the exact text and its version, where, when) and its
 *   withdrawal, kept with the lead.
 * - `visitor_confirmations`: the confirmation mails to visitors, an outbox the notification worker sends
 *   (`sent_at`); at most one per address and hour is written.
 */
export class Migration20261206150200_site_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "site_keys" (
      "id" uuid not null default gen_random_uuid(),
      "company_id" uuid not null references "companies" ("id") on delete cascade,
      "key" text not null constraint "site_keys_key_format" check ("key" ~ '^pk_[A-Za-z0-9_-]{32}$'),
      "name" text not null constraint "site_keys_name_length" check (length("name") between 1 and 255),
      "allowed_origins" text[] not null default '{}' constraint "site_keys_allowed_origins_count" check (coalesce(array_length("allowed_origins", 1), 0) <= 20),
      "created_at" timestamptz not null default now(),
      "created_by_id" uuid null references "users" ("id") on delete set null,
      "revoked_at" timestamptz null,
      constraint "site_keys_pkey" primary key ("id"),
      constraint "site_keys_key_unique" unique ("key"));`);
    this.addSql(`create index "site_keys_company_id_index" on "site_keys" ("company_id", "created_at");`);

    this.addSql(`create table "altcha_spent" (
      "signature" text not null,
      "expires_at" timestamptz not null,
      constraint "altcha_spent_pkey" primary key ("signature"));`);
    this.addSql(`create index "altcha_spent_expires_at_index" on "altcha_spent" ("expires_at");`);

    this.addSql(`create table "service_secrets" (
      "name" text not null,
      "value" text not null,
      "created_at" timestamptz not null default now(),
      constraint "service_secrets_pkey" primary key ("name"));`);

    this.addSql(`create table "lead_consents" (
      "id" uuid not null default gen_random_uuid(),
      "lead_id" uuid not null references "leads" ("id") on delete cascade,
      "purpose" text not null default 'contact' constraint "lead_consents_purpose" check ("purpose" in ('contact')),
      "text" text not null,
      "version" text not null,
      "source" text not null constraint "lead_consents_source" check ("source" in ('form', 'api', 'import')),
      "site_key_id" uuid null references "site_keys" ("id") on delete set null,
      "given_at" timestamptz not null default now(),
      "withdrawn_at" timestamptz null,
      constraint "lead_consents_pkey" primary key ("id"));`);
    this.addSql(`create index "lead_consents_lead_id_index" on "lead_consents" ("lead_id", "given_at");`);

    this.addSql(`create table "visitor_confirmations" (
      "id" uuid not null default gen_random_uuid(),
      "lead_id" uuid not null references "leads" ("id") on delete cascade,
      "store_id" uuid null references "company_retailer_locations" ("id") on delete set null,
      "email" text not null,
      "locale" text not null constraint "visitor_confirmations_locale" check ("locale" in ('en', 'fr')),
      "created_at" timestamptz not null default now(),
      "sent_at" timestamptz null,
      "attempts" int not null default 0,
      "next_attempt_at" timestamptz not null default now(),
      "last_error" text null,
      constraint "visitor_confirmations_pkey" primary key ("id"));`);
    this.addSql(`create index "visitor_confirmations_email_index" on "visitor_confirmations" ("email", "created_at");`);
    this.addSql(`create index "visitor_confirmations_unsent_index" on "visitor_confirmations" ("next_attempt_at") where "sent_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "visitor_confirmations";`);
    this.addSql(`drop table if exists "lead_consents";`);
    this.addSql(`drop table if exists "service_secrets";`);
    this.addSql(`drop table if exists "altcha_spent";`);
    this.addSql(`drop table if exists "site_keys";`);
  }
}
