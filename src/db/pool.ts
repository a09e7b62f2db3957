import type { Options } from '@mikro-orm/postgresql';
import { logger } from '../logger';
import { failed, SpanKind, startSpan, tracingOn } from '../tracing';

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
 * `conn.query` told how each statement ends: `watch(args)`, called as the statement is sent, returns
 * what to call with its error (null when it succeeds), or undefined to leave the statement alone. Statements
 * are sent with a callback (knex) or as a promise (src/db/sql.ts).
 */
function watchStatements(conn: RawConnection, watch: (args: any[]) => ((err: unknown) => void) | undefined): void {
  const query = conn.query.bind(conn);
  conn.query = (...args: any[]) => {
    const settled = watch(args);
    if (!settled) return query(...args);
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const cb = args[last];
      args[last] = (err: unknown, res: unknown) => {
        settled(err ?? null);
        cb(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result && typeof result.then === 'function') result.then(() => settled(null), settled);
    else settled(null);
    return result;
  };
}

/**
 * A query that timed out on the client side leaves its connection waiting for an answer that may never
 * come; closing it at once makes the rest of the request (its ROLLBACK) fail fast instead of waiting
 * again, and the pool replaces it (knex discards ended connections).
 */
function closeOnReadTimeout(conn: RawConnection): void {
  const check = (err: unknown) => {
    if (err instanceof Error && err.message === 'Query read timeout') conn.end();
  };
  watchStatements(conn, () => check);
}

/**
 * A span per statement when tracing is on and a sampled span is running (a request, a delivery):
 * statements of background polling make no traces of their own. The statement's text is kept with its
 * string literals masked (MikroORM's `execute` writes values into the text), never its values.
 */
function traceStatements(conn: RawConnection): void {
  watchStatements(conn, (args) => {
    const text: unknown = typeof args[0] === 'string' ? args[0] : args[0]?.text;
    const span = tracingOn() && typeof text === 'string' ? statementSpan(text, conn) : undefined;
    if (!span) return undefined;
    return (err: unknown) => {
      if (err) failed(span, err);
      span.end();
    };
  });
}

function statementSpan(text: string, conn: RawConnection) {
  const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
  return startSpan(operation, {
    kind: SpanKind.CLIENT,
    childOnly: true,
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': operation,
      'db.namespace': (conn as { database?: string }).database ?? '',
      'db.query.text': maskLiterals(text),
    },
  });
}

/** The most of a statement's text a span keeps (a batch's insert, its values inlined, can be 200 KB). */
const STATEMENT_TEXT_CHARS = 2048;

/**
 * `sql` with its string literals (`E'...'` escapes included) as `?`, cut at `STATEMENT_TEXT_CHARS`: values written into the text
 * (names, e-mails) stay out of traces. A quote left open (a literal cut short, an escape the pattern does
 * not know) ends the text there.
 */
export function maskLiterals(sql: string): string {
  const masked = sql.slice(0, STATEMENT_TEXT_CHARS).replace(/\b[Ee]'(?:[^'\\]|''|\\.)*'|'(?:[^']|'')*'/g, '?');
  const open = masked.indexOf("'");
  return open < 0 ? masked : `${masked.slice(0, open)}?`;
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
        traceStatements(conn);
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
