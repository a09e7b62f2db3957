import { Client } from 'pg';
import { MikroORM, type EntityClass, type Options } from '@mikro-orm/postgresql';
import { ormOptions } from './orm-options';
import { projectMigrations } from './migration-files';

/** The advisory lock key that serializes migrations across every process on one database. */
export const MIGRATION_LOCK = 727_000;

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so replicas starting together migrate
 * once: the first runs them, the others wait and then find nothing pending. Runs on its own short-lived
 * ORM without the service's statement timeout (a migration may take longer than a request should).
 * Returns the names of the migrations applied.
 */
export async function migrate(url: string, entities: readonly EntityClass<any>[], extra: Partial<Options> = {}): Promise<string[]> {
  const lock = new Client({ connectionString: url });
  await lock.connect();
  // A lost lock connection must not crash the process; the session's end releases the lock anyway.
  lock.on('error', () => undefined);
  try {
    // Most starts have nothing to apply: say so without queueing on the lock behind other replicas.
    if (await upToDate(lock)) return [];
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const orm = await MikroORM.init(ormOptions(url, entities, { ...extra, pool: { min: 0, max: 2 } }));
    try {
      return (await orm.getMigrator().up()).map((m) => m.name);
    } finally {
      await orm.close();
    }
  } finally {
    await lock.end().catch(() => undefined);
  }
}

/** Whether every known migration is recorded as applied (read without the lock; `up()` re-checks under it). */
async function upToDate(client: Client): Promise<boolean> {
  const { rows } = await client.query(`select to_regclass('mikro_orm_migrations') is not null as present`);
  if (!rows[0].present) return false;
  const applied = new Set((await client.query('select name from mikro_orm_migrations')).rows.map((r) => r.name));
  return projectMigrations().every((m) => applied.has(m.name));
}
