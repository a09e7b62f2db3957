import net from 'node:net';
import type { Config } from '../config';
import { embeddedClusterDir, embeddedUrl, startEmbeddedPostgres } from '../db/embedded';

export interface CliDatabase {
  url: string;
  /** `DATABASE_URL`, the embedded cluster of a running service, or one started for this command. */
  source: 'database_url' | 'running' | 'started';
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

/**
 * The database a command works on, as `npm start` chooses it: `DATABASE_URL` when set; else the embedded
 * cluster under `DATA_DIR` on `EMBEDDED_PG_PORT`, reused when the service is running (something listens
 * on that port), otherwise started for the command and stopped by `close()`.
 */
export async function openDatabase(config: Config, progress: (line: string) => void = () => undefined): Promise<CliDatabase> {
  const none = async () => undefined;
  if (config.databaseUrl) return { url: config.databaseUrl, source: 'database_url', close: none };
  const port = config.embeddedPgPort;
  if (await isListening(port)) return { url: embeddedUrl(port), source: 'running', close: none };
  const dir = embeddedClusterDir(config.dataDir);
  progress(`Starting embedded PostgreSQL in ${dir} on port ${port} for this command...`);
  const db = await startEmbeddedPostgres(dir, port, { log: progress });
  // Ctrl-C or SIGTERM during a command stops the database it started (then exits as the signal would).
  const onSignal = (signal: NodeJS.Signals) => void db.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    url: db.url,
    source: 'started',
    close: async () => {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await db.stop();
    },
  };
}
