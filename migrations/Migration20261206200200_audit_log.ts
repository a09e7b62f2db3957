import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (docs/personal-data.md "Audit log"): an append-only, hash-chained record of who created or
 * revoked keys, changed roles or settings, imported or exported. One chain per company, and the platform
 * chain (`chain_id` the nil UUID) for entries without a company. `audit_chains` holds each chain's head
 * (its last sequence number and hash): an append locks the head row, so a chain's entries are numbered
 * 1, 2, 3... without gaps, each hashing its predecessor's hash with its own content (src/modules/audit).
 * A trigger refuses UPDATE, DELETE and TRUNCATE of entries; a superuser (or the table's owner) can still
 * disable it, which `leadnet audit verify` catches. No foreign keys: entries outlive what they name.
 */
export class Migration20261206200200_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "audit_chains" (
      "chain_id" uuid primary key,
      "last_seq" bigint not null default 0,
      "last_hash" text not null default repeat('0', 64));`);
    this.addSql(`create table "audit_entries" (
      "id" uuid primary key,
      "chain_id" uuid not null,
      "company_id" uuid generated always as (nullif("chain_id", '00000000-0000-0000-0000-000000000000'::uuid)) stored,
      "seq" bigint not null check ("seq" > 0),
      "at" timestamptz not null,
      "actor_type" text not null check ("actor_type" in ('user', 'operator', 'system')),
      "actor_id" text null,
      "api_key_id" uuid null,
      "action" text not null,
      "target_type" text not null,
      "target_id" text null,
      "details" jsonb not null default '{}',
      "prev_hash" text not null,
      "hash" text not null,
      constraint "audit_entries_chain_seq_unique" unique ("chain_id", "seq"));`);
    this.addSql(`create index "audit_entries_target_index" on "audit_entries" ("chain_id", "target_id", "seq");`);
    this.addSql(`create index "audit_entries_actor_index" on "audit_entries" ("chain_id", "actor_id", "seq");`);
    this.addSql(`create index "audit_entries_action_index" on "audit_entries" ("chain_id", "action", "seq");`);
    this.addSql(`create function "audit_entries_append_only"() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_entries is append-only: % refused', tg_op using errcode = '55000';
      end $$;`);
    this.addSql(`create trigger "audit_entries_append_only" before update or delete on "audit_entries"
      for each row execute function "audit_entries_append_only"();`);
    this.addSql(`create trigger "audit_entries_no_truncate" before truncate on "audit_entries"
      for each statement execute function "audit_entries_append_only"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_entries";`);
    this.addSql(`drop function if exists "audit_entries_append_only"();`);
    this.addSql(`drop table if exists "audit_chains";`);
  }
}
