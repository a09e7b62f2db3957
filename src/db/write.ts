import { UniqueConstraintViolationException, ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { destroyHalted, invalid, validationDetail } from '../errors';

/** Maps a unique index name to the attribute it protects, for `taken` errors. */
export type UniqueFields = Record<string, string>;

/**
 * Runs a write in one transaction. A unique violation (a race lost to a concurrent writer) becomes
 * 422 `taken` on the attribute the index protects, never a 500.
 */
export async function transactional<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>, unique: UniqueFields = {}): Promise<T> {
  try {
    return await em.transactional((tx) => work(tx as EntityManager));
  } catch (e) {
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
