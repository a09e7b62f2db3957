import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../context';
import { badRequest, validationDetail, writeConflict } from '../errors';
import { genericBody, httpError, type HttpError } from '../http/envelopes';
import { isTransactionConflict } from '../db/outage';
import { TRANSACTION_ATTEMPTS } from '../db/write';
import { logger } from '../logger';
import { httpErrorOf, RestError, type RestExecutor, type RunOptions } from './executor';
import { idempotencyQueries, IDEMPOTENCY_TTL_HOURS, type StoredAnswer } from './idempotency.repository';

/**
 * `Idempotency-Key` on /v1 writes (docs/partners.md), with Stripe's semantics: the first answer to a key
 * of an API key is stored in the transaction of the write itself and replayed, for 24 hours, to every
 * request that repeats it (same method, path with query string, and body); another request with that key
 * is 422, and one sent while the first still runs is 409. Answers of 5xx and 429 are not stored: nothing
 * was written, and the client may send the request again with the same key.
 */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set to `true` on a replayed answer. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export { IDEMPOTENCY_TTL_HOURS };

/** A /v1 write's answer before it is sent: its status and JSON body (none for a 204). */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The answer as sent: the body's JSON text, encoded once (a replay sends the stored text). */
export interface SentAnswer {
  status: number;
  text: string | null;
  headers: Record<string, string>;
}

/** An answer for an error. */
export function errorAnswer(err: unknown): Answer {
  const http: HttpError = httpErrorOf(err);
  return { status: http.status, body: http.body, headers: http.headers };
}

/**
 * The request's `Idempotency-Key`, or undefined when it sends none. A blank key or one of more than
 * MAX_IDEMPOTENCY_KEY_LENGTH characters is 400.
 */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.header(IDEMPOTENCY_HEADER);
  if (key === undefined) return undefined;
  if (!key.trim()) throw badRequest(`${IDEMPOTENCY_HEADER} must not be blank`);
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw badRequest(`${IDEMPOTENCY_HEADER} must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters (got ${key.length})`);
  return key;
}

/** What makes two requests "the same": method, path with query string, and the JSON body as parsed. */
export function requestFingerprint(req: Request): string {
  const body = req.body === undefined ? '' : JSON.stringify(req.body);
  return createHash('sha256').update(`${req.method}\n${req.originalUrl}\n${body}`, 'utf8').digest('hex');
}

/** 5xx and 429 answers are not stored: nothing was written, and the same key may be sent again. */
const storable = (status: number) => status < 500 && status !== 429;

const BACKOFF_MS = 25;

function encoded(answer: Answer): SentAnswer {
  return { status: answer.status, text: answer.body === undefined ? null : JSON.stringify(answer.body), headers: answer.headers ?? {} };
}

/** The 409's message. */
export const STILL_RUNNING = `A request with this ${IDEMPOTENCY_HEADER} is still being processed; send it again once it has been answered`;

const stillRunning = (): SentAnswer => encoded({ status: 409, body: genericBody(409, STILL_RUNNING), headers: { 'Retry-After': '1' } });

function mismatch(): SentAnswer {
  const detail = validationDetail(
    'idempotency_key',
    'invalid',
    `was used for another request (method, path or body) within the last ${IDEMPOTENCY_TTL_HOURS} hours; send a new key for a new request`,
  );
  const http = httpError('BAD_USER_INPUT', `Validation failed: ${detail.fullMessage}`, [detail]);
  return encoded({ status: http.status, body: http.body });
}

/**
 * Runs a write under its `Idempotency-Key`, in one transaction:
 *
 * 1. `pg_try_advisory_xact_lock` on (API key, key): not acquired, a request with the key is running: 409;
 * 2. a stored answer of the last 24 hours: replayed when the fingerprint matches, else 422;
 * 3. else `work` runs on the transaction (its services' own `transactional()` become savepoints, and do
 *    not run themselves again: a deadlock here is run again from the start, in a fresh context, up to
 *    TRANSACTION_ATTEMPTS times, then 503), its answer is stored beside its writes, and the transaction
 *    commits. A failed operation's writes are rolled back to a savepoint before its answer is stored.
 *
 * The search engine's read-your-writes wait runs after the commit.
 */
export async function idempotentWrite(
  executor: RestExecutor,
  req: Request,
  ctx: Context,
  key: string,
  work: (ctx: Context, options: RunOptions) => Promise<Answer>,
): Promise<SentAnswer & { replayed?: true }> {
  const apiKeyId = ctx.caller?.apiKeyId;
  if (!apiKeyId) throw new Error('an idempotent write needs the API key of its caller');
  const fingerprint = requestFingerprint(req);
  const tx = executor.orm.em.fork() as EntityManager;
  await tx.begin();
  let open = true;
  const end = async (commit: boolean) => {
    await (commit ? tx.commit() : tx.rollback());
    open = false;
  };
  try {
    if (!(await idempotencyQueries.tryLock(tx, apiKeyId, key))) {
      await end(false);
      return stillRunning();
    }
    const stored = await idempotencyQueries.find(tx, apiKeyId, key);
    if (stored) {
      await end(false);
      if (stored.fingerprint !== fingerprint) return mismatch();
      return { status: stored.status, text: stored.body, headers: {}, replayed: true };
    }
    const waits: Array<() => Promise<void>> = [];
    const answer = await runAttempts(executor, ctx, tx, waits, work);
    const sent = encoded(answer);
    if (!storable(sent.status)) {
      await end(false);
      return sent;
    }
    const row: StoredAnswer = { fingerprint, status: sent.status, body: sent.text };
    await idempotencyQueries.store(tx, apiKeyId, key, row);
    await end(true);
    for (const wait of waits) await wait();
    return sent;
  } finally {
    if (open) await tx.rollback().catch((err) => logger.warn({ err }, 'rolling back an idempotent write failed'));
  }
}

/** `work` in a savepoint of `tx`, run again from the start when it loses to concurrent writes. */
async function runAttempts(
  executor: RestExecutor,
  first: Context,
  tx: EntityManager,
  waits: Array<() => Promise<void>>,
  work: (ctx: Context, options: RunOptions) => Promise<Answer>,
): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const ctx = attempt === 1 ? first : await executor.fresh(first);
    waits.length = 0;
    try {
      return await tx.transactional(async (savepoint) => {
        ctx.em = savepoint as EntityManager;
        return work(ctx, { afterCommit: (wait) => waits.push(wait) });
      });
    } catch (e) {
      const conflict = isTransactionConflict(e instanceof RestError ? e.original : e);
      if (!conflict) return errorAnswer(e);
      if (attempt < TRANSACTION_ATTEMPTS) {
        logger.debug({ err: e, attempt }, 'idempotent write lost to concurrent writes; running it again');
        await sleep(Math.random() * BACKOFF_MS * 2 ** (attempt - 1));
        continue;
      }
      logger.warn({ err: e, attempts: attempt }, 'idempotent write lost to concurrent writes on every attempt');
      return errorAnswer(writeConflict());
    }
  }
}
