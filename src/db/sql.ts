import { createHash } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/**
 * Named (server-side prepared) statements: PostgreSQL parses and plans a named statement once per
 * connection and then, for most statements, reuses a generic plan, where an unnamed one is planned on
 * every call (about 1 ms for a lead page and its rows, 2 ms for a store search). A text gets a name the second
 * time it is sent, up to `limit` texts per process (search builds its statement from the request's
 * filters, so texts are not a fixed set): each connection then holds at most `limit` statements.
 * `DB_PREPARED_STATEMENTS=0` turns them off (a transaction-mode connection pooler before PgBouncer 1.21);
 * `query(..., { prepare: false })` keeps one statement out (one whose best plan depends on its values).
 */
const prepared = { limit: 200, names: new Map<string, string | null>(), seen: new Set<string>() };

export function usePreparedStatements(limit: number): void {
  prepared.limit = limit;
  prepared.names.clear();
  prepared.seen.clear();
}

function statementName(sql: string): string | undefined {
  const known = prepared.names.get(sql);
  if (known !== undefined) return known ?? undefined;
  if (prepared.names.size >= prepared.limit) return undefined;
  if (!prepared.seen.has(sql)) {
    if (prepared.seen.size >= 10 * prepared.limit) prepared.seen.clear();
    prepared.seen.add(sql);
    return undefined;
  }
  prepared.seen.delete(sql);
  const name = `leadnet_${createHash('sha1').update(sql).digest('hex')}`;
  prepared.names.set(sql, name);
  return name;
}

/**
 * A prepared statement whose result columns changed under it (a migration run by another process
 * altered a table it reads): PostgreSQL refuses to run it again on that connection, so the text is sent
 * unnamed from then on (at once, outside a transaction).
 */
const planChanged = (e: unknown) => (e as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((e as Error).message));

/**
 * Runs one SQL statement with positional `?` bindings: how a repository that is handed its runner (the
 * store locator, the search indexes) sends statements. Only repositories, queries files and `src/db/`
 * call one (test/architecture/sql-homes.test.ts).
 */
export type Execute = (sql: string, bindings: unknown[]) => Promise<any[]>;

/** An `Execute` on MikroORM's `execute` of `em`, in its transaction (MikroORM writes the values into the text). */
export function executeIn(em: EntityManager): Execute {
  return (sql, bindings) => em.execute(sql, bindings as any[]);
}

/** An `Execute` on the ORM's connection: the shared pool, outside any transaction (MikroORM's `execute`). */
export function executeOnPool(orm: MikroORM): Execute {
  return (sql, bindings) => (orm.em as EntityManager).getConnection().execute(sql, bindings as any[]);
}

/**
 * A read statement sent with its values as parameters (`?` placeholders, knex style), in the
 * EntityManager's transaction when it has one, logged like MikroORM's own statements and failing with
 * its exception classes. MikroORM's
 * `execute` writes every value into the SQL text instead, so no two statements share a text.
 */
export async function query<T = any>(em: EntityManager, sql: string, bindings: readonly unknown[] = [], options: { prepare?: boolean } = {}): Promise<T[]> {
  const connection = em.getConnection() as any;
  await connection.ensureConnection();
  const trx = em.getTransactionContext();
  const send = async (name: string | undefined) => {
    if (!trx) return (await pooled(connection.getKnex().client, sql, bindings, name)) as T[];
    return inTurn(trx, async () => {
      const raw = connection.getKnex().raw(sql, bindings);
      if (name) raw.options({ name });
      raw.transacting(trx);
      return (await raw).rows as T[];
    });
  };
  try {
    return await connection.executeQuery(
      sql,
      async () => {
        const name = options.prepare === false ? undefined : statementName(sql);
        try {
          return await send(name);
        } catch (e) {
          if (!name || !planChanged(e)) throw e;
          prepared.names.set(sql, null);
          if (trx) throw e; // the transaction is aborted: the caller's retry, if any, sends it unnamed
          return await send(undefined);
        }
      },
      { query: sql, params: bindings },
    );
  } catch (e) {
    // MikroORM's exception classes, as for its own statements (`transactional` maps constraint violations).
    throw e instanceof Error ? em.getDriver().convertException(e) : e;
  }
}

/**
 * A transaction's statements one at a time, in the order they were asked for: a transaction is one
 * connection, and node-postgres (from pg 9) refuses a query sent while another runs on it. The
 * request's loaders ask theirs at once when a write's answer is read inside its transaction (an
 * `Idempotency-Key` write, src/rest/idempotency.ts).
 */
const running = new WeakMap<object, Promise<unknown>>();
function inTurn<T>(trx: object, run: () => Promise<T>): Promise<T> {
  const next = (running.get(trx) ?? Promise.resolve()).then(run, run);
  running.set(trx, next.catch(() => undefined));
  return next;
}

/**
 * `sql` with its `?` placeholders numbered as PostgreSQL's `$1, $2, ...` (`\\?` is a literal question
 * mark), as knex numbers them; the number of placeholders must be the number of values.
 */
export function positional(sql: string, values: readonly unknown[]): string {
  let n = 0;
  const text = sql.replace(/\\?\?/g, (m) => (m === '\\?' ? '?' : `$${++n}`));
  if (n !== values.length) throw new Error(`Expected ${values.length} bindings, saw ${n}`);
  if (values.includes(undefined)) throw new Error('Undefined binding detected');
  return text;
}

/**
 * A statement outside any transaction, on a connection of knex's pool (its limits and timeouts), sent
 * to node-postgres as it is: knex's raw builder, runner and their copies of the values are about 5% of
 * a small list request's CPU. Inside a transaction, statements go through knex (its connection and checks).
 */
async function pooled(client: any, sql: string, values: readonly unknown[], name: string | undefined): Promise<unknown[]> {
  const text = positional(sql, values);
  const pg = await client.acquireConnection();
  try {
    return (await pg.query(name ? { text, values, name } : { text, values })).rows;
  } finally {
    client.releaseConnection(pg);
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
