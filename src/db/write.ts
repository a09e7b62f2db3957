import { setTimeout as sleep } from 'node:timers/promises';
import { UniqueConstraintViolationException, ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { destroyHalted, invalid, validationDetail, writeConflict } from '../errors';
import { logger } from '../logger';
import { isTransactionConflict } from './outage';

/** Maps a unique index name to the attribute it protects, for `taken` errors. */
export type UniqueFields = Record<string, string>;

/** How many times a re-runnable unit of work is tried when it loses to concurrent writes. */
export const TRANSACTION_ATTEMPTS = 3;
/** The wait before the second attempt is up to this many ms (full jitter), doubling for each later one. */
const BACKOFF_MS = 25;

export interface WriteOptions {
  /**
   * The work reads in its transaction everything it changes (no entity loaded or changed before it, no
   * effect outside the database), so it can run again from the start. Each attempt runs on a fresh fork
   * of `em` with an empty identity map, so no entity state of the request or of a failed attempt is
   * reused; a deadlock or serialization failure runs it again, up to TRANSACTION_ATTEMPTS times.
   */
  rerun?: boolean;
}

/**
 * Runs a write in one transaction. A unique violation (a race lost to a concurrent writer) becomes
 * 422 `taken` on the attribute the index protects, never a 500. A deadlock or serialization failure
 * (PostgreSQL rolled the transaction back: nothing of it is stored) is run again with `rerun`, after a
 * short random wait, and when it still loses (or cannot run again) answers 503 with `Retry-After`
 * (`writeConflict`). Only the outermost transaction runs again or answers so: a conflict in a nested
 * one has aborted its parent too, and reaches the parent's `transactional()` as it came.
 */
export async function transactional<T>(
  em: EntityManager,
  work: (em: EntityManager) => Promise<T>,
  unique: UniqueFields = {},
  { rerun = false }: WriteOptions = {},
): Promise<T> {
  const outermost = !em.isInTransaction();
  const attempts = rerun && outermost ? TRANSACTION_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional((tx) => work(tx as EntityManager), rerun ? { clear: true } : {});
    } catch (e) {
      if (outermost && isTransactionConflict(e)) {
        if (attempt < attempts) {
          logger.debug({ err: e, attempt }, 'write lost to concurrent writes; running it again');
          await sleep(Math.random() * BACKOFF_MS * 2 ** (attempt - 1));
          continue;
        }
        logger.warn({ err: e, attempts: attempt }, 'write lost to concurrent writes on every attempt');
        throw writeConflict();
      }
      if (e instanceof UniqueConstraintViolationException) {
        const constraint = (e as any).constraint ?? '';
        const field = unique[constraint] ?? Object.values(unique)[0] ?? 'base';
        throw invalid([validationDetail(field, 'taken')]);
      }
      if (e instanceof ForeignKeyConstraintViolationException) {
        throw invalid([validationDetail('base', 'invalid', 'refers to a record that does not exist')]);
      }
      throw e;
    }
  }
}

/**
 * Flushes a removal. A row still referenced under a `restrict` foreign key (a dependent written by a
 * concurrent request after the service checked) halts the destroy instead of failing.
 */
export async function flushDestroy(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (e instanceof ForeignKeyConstraintViolationException) throw destroyHalted();
    throw e;
  }
}

/**
 * Names the user a write is made for, for the rest of its transaction (`leadnet.actor_id`): database
 * triggers that depend on who wrote a change read it (a lead is answered only by its store's users).
 */
export async function recordActor(tx: EntityManager, userId: string | null | undefined): Promise<void> {
  await tx.execute(`select set_config('leadnet.actor_id', ?, true)`, [userId ?? '']);
}
