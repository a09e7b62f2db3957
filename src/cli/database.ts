import net from 'node:net';
import type { Config } from '../config';
import { EmbeddedDatabaseError, clusterStatus, embeddedClusterDir, embeddedUrl, startEmbeddedPostgres } from '../db/embedded';

export interface CliDatabase {
  url: string;
  /** `DATABASE_URL`, the embedded cluster of a running service, or one started for this command. */
  source: 'database_url' | 'running' | 'started';
  /** The embedded database's port (absent with `DATABASE_URL`). */
  port?: number;
  /** How the running database was found: its data directory's `postmaster.pid`, or a listener on `EMBEDDED_PG_PORT`. */
  foundBy?: 'data_dir' | 'port';
  close(): Promise<void>;
}

/** Whether something accepts TCP connections on `host:port`. */
export function isListening(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The embedded database of `DATA_DIR` when PostgreSQL runs on it, on the port it was started with. */
function runningOnDataDir(config: Config): CliDatabase | undefined {
  const running = clusterStatus(config.dataDir).running;
  if (!running?.ready) return undefined;
  return { url: embeddedUrl(running.port), source: 'running', port: running.port, foundBy: 'data_dir', close: async () => undefined };
}

/**
 * The database a command works on, as `npm start` chooses it: `DATABASE_URL` when set; else the embedded
 * cluster under `DATA_DIR`. A running one is reused on the port its `postmaster.pid` names, whatever
 * `EMBEDDED_PG_PORT` the service was started with; else something listening on `EMBEDDED_PG_PORT` is
 * taken for a running service (of another `DATA_DIR`); else the cluster is started for the command on
 * `EMBEDDED_PG_PORT` and stopped by `close()`.
 */
export async function openDatabase(config: Config, progress: (line: string) => void = () => undefined): Promise<CliDatabase> {
  const none = async () => undefined;
  if (config.databaseUrl) return { url: config.databaseUrl, source: 'database_url', close: none };
  const running = runningOnDataDir(config);
  if (running) return running;
  const port = config.embeddedPgPort;
  if (await isListening(port)) return { url: embeddedUrl(port), source: 'running', port, foundBy: 'port', close: none };
  const dir = embeddedClusterDir(config.dataDir);
  progress(`Starting embedded PostgreSQL in ${dir} on port ${port} for this command...`);
  let db;
  try {
    db = await startEmbeddedPostgres(dir, port, { log: progress });
  } catch (e) {
    // A service started it meanwhile (the start waits for it, then finds it in use): use that one.
    const meanwhile = e instanceof EmbeddedDatabaseError ? runningOnDataDir(config) : undefined;
    if (meanwhile) return meanwhile;
    throw e;
  }
  const started = db;
  // Ctrl-C or SIGTERM during a command stops the database it started (then exits as the signal would).
  const onSignal = (signal: NodeJS.Signals) => void started.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    url: started.url,
    source: 'started',
    port,
    close: async () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await started.stop();
    },
  };
}
