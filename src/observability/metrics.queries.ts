import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/** The numbers of the database pool (tarn's) that `/metrics` exports. */
export interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  max: number;
}

/** The ORM's connection pool (knex's tarn pool); undefined before the first connection. */
export function connectionPool(orm: MikroORM): TarnPool | undefined {
  return (orm.em as EntityManager).getConnection().getKnex().client.pool;
}

/** Each outbox's rows waiting and the age of its oldest, in seconds (0 when empty), in one statement. */
export async function outboxBacklog(orm: MikroORM, outboxes: ReadonlyArray<{ name: string; table: string }>): Promise<Array<{ name: string; rows: number; age: number }>> {
  const rows = await (orm.em as EntityManager).getConnection().execute(
          outboxes
            .map((o) => `select '${o.name}' as name, count(*)::int as rows, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as age from ${o.table}`)
            .join(' union all '),
        );
  return rows as Array<{ name: string; rows: number; age: number }>;
}
