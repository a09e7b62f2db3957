import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A read statement sent with its values as parameters (`?` placeholders, knex style), in the
 * EntityManager's transaction when it has one, logged like MikroORM's own statements and failing with
 * its exception classes. MikroORM's
 * `execute` writes every value into the SQL text instead, so no two statements share a text.
 */
export async function query<T = any>(em: EntityManager, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const connection = em.getConnection() as any;
  await connection.ensureConnection();
  const trx = em.getTransactionContext();
  try {
    return await connection.executeQuery(
      sql,
      async () => {
        const raw = connection.getKnex().raw(sql, bindings);
        if (trx) raw.transacting(trx);
        return (await raw).rows as T[];
      },
      { query: sql, params: bindings },
    );
  } catch (e) {
    // MikroORM's exception classes, as for its own statements (`transactional` maps constraint violations).
    throw e instanceof Error ? em.getDriver().convertException(e) : e;
  }
}

/**
 * A PostgreSQL array literal for one `?::uuid[]` / `?::text[]` parameter: MikroORM's `execute` inlines a
 * JS array binding as a comma list, so arrays travel as one quoted literal. Values holding NUL (which no
 * stored text can) are left out.
 */
export function pgArray(values: readonly string[]): string {
  const items = values.filter((v) => !v.includes('\u0000')).map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
  return `{${items.join(',')}}`;
}
