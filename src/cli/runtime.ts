import type { Command } from 'commander';
import type { EntityManager, MikroORM, Options } from '@mikro-orm/postgresql';
import { parseConfig, ConfigError, type Config } from '../config';
import { initAppOrm } from '../../mikro-orm.config';
import { usePreparedStatements } from '../db/sql';
import { AppError, type ErrorDetail } from '../errors';
import type { Context } from '../context';
import { Loaders } from '../db/loaders';
import { createSearchBackend } from '../search/factory';
import { searchDocuments } from '../modules';
import { safeError } from '../safe-error';
import { NullGeocoder } from '../geo/geocoder';
import { CLI_OPERATOR, UserService } from '../modules/user/user.service';
import { openDatabase, type CliDatabase } from './database';
import { isEngineUnavailable } from '../search/elasticsearch/unavailable';

/** What a command prints: `json` with `--json`, else `text`; with `failure`, that error follows and the exit status is its. */
export interface CommandResult {
  json: unknown;
  text: string;
  failure?: CliError;
}

/** A failure the command reports itself (exit status `exitCode`, default 1; `message` on stderr). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 'ERROR',
    readonly exitCode = 1,
    /** Already written to stderr (a signal's one line): not written again. */
    readonly reported = false,
  ) {
    super(message);
  }
}

/** The flag each validation field comes from, to point at it in error messages. */
const FLAGS: Record<string, string> = {
  email: '--email',
  name: '--name',
  role: '--role',
  label: '--label',
  company_id: '--company',
  retailer_id: '--retailer',
  territory_id: '--territory',
  company_retailer_ids: '--company-retailer',
  company_retailer_location_ids: '--crl',
  retailer_location_ids: '--retailer-location',
};

/**
 * The database and services of one command, opened on first use and closed when the command ends.
 * The command line acts as the platform operator.
 */
export class Session {
  private db?: Promise<CliDatabase>;
  private ormPromise?: Promise<MikroORM>;

  constructor(
    readonly config: Config,
    private readonly progress: (line: string) => void,
  ) {}

  databaseUrl(): Promise<string> {
    this.db ??= openDatabase(this.config, this.progress);
    return this.db.then((db) => db.url);
  }

  /**
   * ORM options for the command line: one connection that fails fast, and MikroORM's own messages
   * (migrations applied) on the progress stream.
   */
  get ormOptions(): Partial<Options> {
    return { logger: (message: string) => this.progress(message), colors: false, pool: { min: 0, max: 2, acquireTimeoutMillis: 15_000 } };
  }

  /** The ORM on an up-to-date schema (pending migrations are applied, as `npm start` does). */
  orm(): Promise<MikroORM> {
    this.ormPromise ??= this.databaseUrl().then(async (url) => {
      try {
        usePreparedStatements(this.config.database.preparedStatements);
        return await initAppOrm(url, this.ormOptions);
      } catch (e) {
        throw new Error(`Could not open ${await this.describeDatabase()}: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
    return this.ormPromise;
  }

  private async describeDatabase(): Promise<string> {
    const db = await this.db!;
    if (db.source === 'database_url') return 'the database of DATABASE_URL';
    if (db.foundBy === 'data_dir') return `the running embedded database of ${this.config.dataDir} (port ${db.port}, from its postmaster.pid)`;
    if (db.source === 'running') return `the database on port ${db.port} (something listens there, taken for a running leadnet service)`;
    return `the embedded database on port ${db.port}`;
  }

  /** A request-like context without a caller, for services. */
  async context(): Promise<Context> {
    const orm = await this.orm();
    const em = orm.em.fork() as EntityManager;
    return { em, caller: null, loaders: new Loaders(em), config: this.config, search: createSearchBackend(this.config, orm, searchDocuments), geocoder: new NullGeocoder() };
  }

  async users(): Promise<UserService> {
    return new UserService(await this.context(), CLI_OPERATOR);
  }

  async close(): Promise<void> {
    const orm = await this.ormPromise?.catch(() => undefined);
    await orm?.close();
    const db = await this.db?.catch(() => undefined);
    await db?.close();
  }
}

export interface CliRuntime {
  /**
   * Gives `command` the `--json` option and an action that runs `work` in a fresh session, prints its
   * result, reports any error on stderr with exit status 1, and closes the database.
   */
  action<Opts = Record<string, any>>(command: Command, work: (session: Session, opts: Opts, args: string[]) => Promise<CommandResult>): Command;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

export function createRuntime(io: Io = processIo): CliRuntime {
  return {
    action(command, work) {
      command.option('--json', 'machine-readable output: JSON on stdout, errors as JSON on stderr');
      return command.action(async (...received: unknown[]) => {
        const cmd = received[received.length - 1] as Command;
        const opts = cmd.opts();
        const json = opts.json === true;
        let session: Session | undefined;
        // After a signal's one line, closing the database (stopped by that signal too) adds nothing.
        let quiet = false;
        try {
          session = new Session(parseConfig(io.env), json ? () => undefined : (line) => io.err(`${line}\n`));
          const result = await work(session, opts as any, cmd.processedArgs as string[]);
          io.out(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
          if (result.failure) {
            reportError(io, result.failure, json);
            process.exitCode = result.failure.exitCode;
          }
        } catch (e) {
          reportError(io, e, json);
          process.exitCode = e instanceof CliError ? e.exitCode : 1;
          quiet = e instanceof CliError && e.reported;
        } finally {
          await session?.close().catch((e) => quiet || reportError(io, e, json));
        }
      });
    },
  };
}

/**
 * The message of an unexpected error, on one line and without SQL: a database error is MikroORM's
 * `<statement with values> - <database's sentence>`, of which only the sentence (values redacted) is shown.
 */
export function internalMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/^\s*(select|insert|update|delete|with|alter|create|drop)\b/i.test(message)) return safeError(e).message;
  return message.split('\n')[0];
}

export function errorBody(e: unknown): { code: string; message: string; details?: Array<Record<string, string>> } {
  if (e instanceof AppError) {
    const details = e.details.map((d: ErrorDetail) => ({ field: d.field, code: d.code, message: d.message, full_message: d.fullMessage }));
    return { code: e.code, message: e.message, ...(details.length ? { details } : {}) };
  }
  if (e instanceof CliError) return { code: e.code, message: e.message };
  if (e instanceof ConfigError) return { code: 'CONFIG', message: e.message };
  if (isEngineUnavailable(e)) {
    return { code: 'SEARCH_UNAVAILABLE', message: `the search engine gave no usable answer (${(e as Error).name}: ${(e as Error).message}); check SEARCH_URL and the cluster, then run the command again` };
  }
  return { code: 'INTERNAL', message: internalMessage(e) };
}

/** `leadnet: <message>` (and validation details) on stderr, or `{"error":{...}}` with `--json`. */
export function reportError(io: Io, e: unknown, json: boolean): void {
  if (e instanceof CliError && e.reported) return;
  const body = errorBody(e);
  if (json) {
    io.err(`${JSON.stringify({ error: body })}\n`);
    return;
  }
  const lines = [`leadnet: ${body.message}`];
  for (const d of body.details ?? []) lines.push(`  ${FLAGS[d.field] ?? d.field}: ${d.message}`);
  io.err(`${lines.join('\n')}\n`);
}
