import { Migration } from '@mikro-orm/migrations';

/**
 * `Idempotency-Key` on /v1 writes (docs/partners.md, src/rest/idempotency.ts): the answer of a write made
 * with a key, per API key and key, stored in the transaction of the write itself. `fingerprint` is the
 * sha256 of the request's method, path and body; `body` the answer's JSON text as sent (null for a 204).
 * A row is answered for 24 hours after `created_at`; expired rows are deleted a few at a time by later
 * writes (`idempotency_keys_created_at_index`), and with their API key.
 */
export class Migration20261204120000_idempotency_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "idempotency_keys" (
      "api_key_id" uuid not null references "api_keys" ("id") on delete cascade,
      "key" text not null constraint "idempotency_keys_key_length" check (length("key") between 1 and 255),
      "fingerprint" text not null,
      "status" smallint not null,
      "body" text null,
      "created_at" timestamptz not null default now(),
      constraint "idempotency_keys_pkey" primary key ("api_key_id", "key"));`);
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys";`);
  }
}
