import pino from 'pino';
import pretty from 'pino-pretty';
import type { Logger as OrmLogger, LogContext, LoggerNamespace, Options } from '@mikro-orm/core';
import { safeError, type SafeError } from './safe-error';
import { currentRequestId, requestContext } from './request-context';
import { sampledSpan } from './tracing';

/** The levels LOG_LEVEL accepts (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** `LOG_FORMAT` (see src/config.ts): `auto` is readable and colored on a terminal, JSON otherwise. */
function readable(): boolean {
  const format = process.env.LOG_FORMAT || 'auto';
  return format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
}

/** Whether stdout gets JSON lines (every line of it, then: start-up banner and migrations included). */
export const jsonLogs = !readable();

/** The longest string a log line carries in one field; longer ones are cut, saying how much was cut. */
export const MAX_LOGGED_STRING = 2048;

// C0 and C1 control characters but tab and newline, and DEL: a terminal would act on them (ANSI escapes).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const escapeControl = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * A string as a log line may carry it: at most `MAX_LOGGED_STRING` characters, control characters
 * written out (`\u001b`), and, for the readable format (where JSON does not escape them), newlines too
 * unless `multiline` (stack traces), so nothing logged can forge a line or drive the terminal.
 */
export function loggable(s: string, multiline = false): string {
  let out = s.length > MAX_LOGGED_STRING ? `${s.slice(0, MAX_LOGGED_STRING)}... (${s.length - MAX_LOGGED_STRING} more characters)` : s;
  out = out.replace(CONTROL, escapeControl);
  if (!jsonLogs && !multiline) out = out.replace(/\n/g, '\\n');
  return out;
}

/** `loggable` applied to every string of a logged value (plain objects and arrays, a few levels deep). */
function clean(value: unknown, key = '', depth = 0): unknown {
  if (typeof value === 'string') return loggable(value, key === 'stack');
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => clean(v, '', depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // errors go through their serializer
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = clean(v, k, depth + 1);
  return out;
}

/**
 * Serializers of the process logger: errors are written without data (src/safe-error.ts) and cleaned;
 * the stack's first line is rebuilt from the cleaned message, so a newline in a message cannot add a
 * line that looks like a frame.
 */
export const logSerializers = {
  err: (err: unknown) => {
    const raw = safeError(err);
    const safe = clean(raw) as SafeError;
    if (raw.stack) {
      const frames = raw.stack.slice(`${raw.type}: ${raw.message}`.length).split('\n').filter((l) => /^\s+at /.test(l));
      safe.stack = [`${safe.type}: ${safe.message.replace(/\n/g, '\\n')}`, ...frames.map((f) => loggable(f, true))].join('\n');
    }
    return safe;
  },
};

// An invalid LOG_LEVEL is reported by config() (src/config.ts); until then the logger uses `info`.
const level = (LOG_LEVELS as readonly string[]).includes(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL! : 'info';

/**
 * The process logger; its level comes from LOG_LEVEL (see src/config.ts). Every line written while a
 * request is served carries its `reqId` (src/observability/request-id.ts). No field, message included,
 * can carry control characters or more than `MAX_LOGGED_STRING` characters (`loggable`).
 */
export const logger = pino(
  {
    level,
    base: undefined,
    serializers: { ...logSerializers, msg: (msg: unknown) => (typeof msg === 'string' ? loggable(msg) : msg) },
    formatters: { log: (obj) => clean(obj) as Record<string, unknown> },
    mixin: () => {
      const reqId = currentRequestId();
      const span = sampledSpan();
      if (span) return { ...(reqId && { reqId }), traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
      return reqId ? { reqId } : {};
    },
  },
  readable() ? pretty({ colorize: process.stdout.isTTY === true, singleLine: true, sync: true }) : undefined,
);

/**
 * A logger that writes whatever LOG_LEVEL says (it is a child at `info` at least): for the one-time
 * output that must not be lost, such as the demo seed's API keys.
 */
export function alwaysLogger(): pino.Logger {
  return logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
}

const MIGRATION = /^(Processing|Applied|Reverted) '(.+)'$/;

/**
 * MikroORM's messages on the process logger, as JSON lines like every other (never its colored text):
 * migrations at `info` (`migration applied`, with its name), deprecations as warnings, and, at
 * `LOG_LEVEL=debug`, one `sql` line per statement (the SQL with `$n` placeholders, never the values; its
 * duration in ms; rows) plus, per request, the count and total time of its statements on the access line
 * (`src/observability/access-log.ts`).
 */
class PinoOrmLogger implements OrmLogger {
  log(namespace: LoggerNamespace | string, message: string, context?: LogContext): void {
    const migration = namespace === 'migrator' ? MIGRATION.exec(message) : null;
    if (migration) {
      const [, verb, name] = migration;
      if (verb === 'Processing') logger.debug({ migration: name }, 'migration starting');
      else logger.info({ migration: name }, `migration ${verb.toLowerCase()}`);
      return;
    }
    const problem = context?.level === 'error' || context?.level === 'warning';
    if (!problem && namespace !== 'migrator' && !this.isEnabled(namespace as LoggerNamespace, context)) return; // discovery...
    const fields = { orm: namespace };
    const text = message.replace(/\x1b\[[0-9;]*m/g, ''); // MikroORM colours parts of some messages
    if (context?.level === 'error') logger.error(fields, text);
    else if (context?.level === 'warning' || namespace === 'deprecated') logger.warn(fields, text);
    else if (namespace === 'migrator') logger.info(fields, text);
    else logger.debug(fields, text); // `info`: its version and "connected", twice per start
  }

  error(namespace: LoggerNamespace | string, message: string, context?: LogContext): void {
    this.log(namespace, message, { ...context, level: 'error' });
  }

  warn(namespace: LoggerNamespace | string, message: string, context?: LogContext): void {
    this.log(namespace, message, { ...context, level: 'warning' });
  }

  logQuery(context: LogContext): void {
    if (!logger.isLevelEnabled('debug')) return;
    const ms = context.took ?? 0;
    const store = requestContext.getStore();
    if (store) {
      store.sql ??= { statements: 0, ms: 0 };
      store.sql.statements += 1;
      store.sql.ms += ms;
    }
    const rows = context.results ?? context.affected;
    logger.debug({ sql: context.query, ms, ...(rows !== undefined && { rows }), ...(context.level === 'error' && { failed: true }) }, 'sql');
  }

  setDebugMode(): void {
    // LOG_LEVEL decides.
  }

  isEnabled(namespace: LoggerNamespace, context?: LogContext): boolean {
    if (context?.enabled !== undefined) return context.enabled;
    // `query` makes MikroORM hand over the statement (with `$n` placeholders); never `query-params`.
    if (namespace === 'query') return logger.isLevelEnabled('debug');
    return namespace === 'deprecated';
  }
}

/** ORM options that send MikroORM's output to the process logger (`PinoOrmLogger`): the service's ORMs and its migrations. */
export function ormLogging(): Pick<Options, 'loggerFactory' | 'debug' | 'colors'> {
  return { loggerFactory: () => new PinoOrmLogger(), debug: logger.isLevelEnabled('debug') ? ['query'] : false, colors: false };
}
