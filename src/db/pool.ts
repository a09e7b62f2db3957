import type { Options } from '@mikro-orm/postgresql';
import { logger } from '../logger';

/** How long the service waits on PostgreSQL (`DB_*` in src/config.ts). */
export interface DatabaseLimits {
  /** Connections in this process's pool. */
  poolSize: number;
  /** Server-side `statement_timeout`; the client gives up a second later (a hung server never answers). */
  statementTimeoutMs: number;
  /** Longest wait for a pooled connection, and for a new connection to be established. */
  acquireTimeoutMs: number;
  /** Statement texts this process prepares on its connections (src/db/sql.ts); 0: none. */
  preparedStatements: number;
}

/** Grace after the server-side timeout before the client-side one, so a live server reports first. */
const CLIENT_GRACE_MS = 1000;

type RawConnection = { query: (...args: any[]) => any; end(): unknown; on(event: string, fn: (...args: any[]) => void): unknown };

/**
 * A query that timed out on the client side leaves its connection waiting for an answer that may never
 * come; closing it at once makes the rest of the request (its ROLLBACK) fail fast instead of waiting
 * again, and the pool replaces it (knex discards ended connections).
 */
function closeOnReadTimeout(conn: RawConnection): void {
  const query = conn.query.bind(conn);
  const check = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') conn.end();
  };
  conn.query = (...args: any[]) => {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const cb = args[last];
      args[last] = (err: unknown, res: unknown) => {
        check(err);
        cb(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result && typeof result.then === 'function') result.then(undefined, check);
    return result;
  };
}

/**
 * MikroORM (knex, tarn, node-postgres) options that bound every wait on the database: the pool size,
 * the acquire and connect timeouts, the server's statement timeout and a client-side read timeout
 * for a server that stopped answering altogether.
 */
export function databaseOptions(limits: DatabaseLimits): Partial<Options> {
  return {
    pool: {
      min: 0,
      max: limits.poolSize,
      acquireTimeoutMillis: limits.acquireTimeoutMs,
      createTimeoutMillis: limits.acquireTimeoutMs,
      afterCreate: (conn: RawConnection, done: (err: Error | null, conn: RawConnection) => void) => {
        closeOnReadTimeout(conn);
        done(null, conn);
      },
    } as Options['pool'],
    driverOptions: {
      acquireConnectionTimeout: limits.acquireTimeoutMs,
      // knex's own warnings (a connection lost while idle) go to the service's log, not console.log.
      log: {
        warn: (message: unknown) => logger.warn({ knex: String(message) }, 'database driver warning'),
        error: (message: unknown) => logger.error({ knex: String(message) }, 'database driver error'),
        deprecate: () => undefined,
        debug: () => undefined,
      },
      connection: {
        statement_timeout: limits.statementTimeoutMs,
        query_timeout: limits.statementTimeoutMs + CLIENT_GRACE_MS,
        connectionTimeoutMillis: limits.acquireTimeoutMs,
        keepAlive: true,
      },
    },
  };
}
