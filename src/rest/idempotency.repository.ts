import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';

/** How long a stored answer is replayed (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** Expired rows a stored answer deletes on its way (docs/partners.md, "How long a key is kept"). */
const EXPIRED_PER_WRITE = 20;

/** A stored answer (`idempotency_keys`). */
export interface StoredAnswer {
  fingerprint: string;
  status: number;
  /** The answer's JSON text as sent; null for a 204. */
  body: string | null;
}

/**
 * The statements of `Idempotency-Key` (src/rest/idempotency.ts), each in the write's own transaction
 * `tx`.
 */
export const idempotencyQueries = {
  /**
   * The transaction-scoped advisory lock of (API key, key), without waiting: false while another
   * transaction (a request still running with that key) holds it.
   */
  async tryLock(tx: EntityManager, apiKeyId: string, key: string): Promise<boolean> {
    const [row] = await query<{ locked: boolean }>(tx, `select pg_try_advisory_xact_lock(hashtextextended('idempotency:' || ? || ':' || ?, 0)) as locked`, [
      apiKeyId,
      key,
    ]);
    return row.locked;
  },

  /** The answer stored for (API key, key) within the last IDEMPOTENCY_TTL_HOURS, if any. */
  async find(tx: EntityManager, apiKeyId: string, key: string): Promise<StoredAnswer | null> {
    const [row] = await query<StoredAnswer>(
      tx,
      `select fingerprint, status, body from idempotency_keys
        where api_key_id = ? and key = ? and created_at > now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
      [apiKeyId, key],
    );
    return row ?? null;
  },

  /**
   * Stores the answer (replacing an expired row of the same key) and deletes a few expired rows of any
   * key, skipping those another transaction holds: each write pays for a bounded cleanup, so the table
   * holds about a day of writes without a job of its own.
   */
  async store(tx: EntityManager, apiKeyId: string, key: string, answer: StoredAnswer): Promise<void> {
    await query(
      tx,
      `with expired as (
         delete from idempotency_keys
          where (api_key_id, key) in (
                  select api_key_id, key from idempotency_keys
                   where created_at <= now() - interval '${IDEMPOTENCY_TTL_HOURS} hours' and not (api_key_id = ? and key = ?)
                   order by created_at limit ${EXPIRED_PER_WRITE} for update skip locked)
       )
       insert into idempotency_keys (api_key_id, key, fingerprint, status, body)
       values (?, ?, ?, ?, ?)
       on conflict (api_key_id, key) do update
          set fingerprint = excluded.fingerprint, status = excluded.status, body = excluded.body, created_at = now()`,
      [apiKeyId, key, apiKeyId, key, answer.fingerprint, answer.status, answer.body],
    );
  },
};
