import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** /readyz answers within this bound whether the database answers, refuses or hangs. */
export const READY_TIMEOUT_MS = 500;

/** Whether the database answers `select 1` through the pool within `timeoutMs`. */
export async function databaseReady(orm: MikroORM, timeoutMs = READY_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = (orm.em as EntityManager)
    .getConnection()
    .execute('select 1')
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([probe, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
