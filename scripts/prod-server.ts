/**
 * The production server as a deployment starts it (`npm run start:prod`, `node dist/src/main.js`), for
 * the scripts that check the build (scripts/smoke-prod.ts, scripts/churn.ts): on a free port, on its own
 * database, stopped and cleaned up by `close`.
 *
 * The database: without DATABASE_URL, the server starts its own embedded PostgreSQL (as `npm start`
 * does) in a temporary DATA_DIR on a free port, removed afterwards. With DATABASE_URL, a scratch database
 * is created on that server (`leadnet_<name>_<pid>`, the user needs CREATEDB) and dropped afterwards.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Client } from 'pg';

export const ROOT = path.join(__dirname, '..');

export function run(command: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command[0], command.slice(1), { cwd: ROOT, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `npm run start:prod` on `port`; resolves once it answers /healthz. */
async function startServer(env: NodeJS.ProcessEnv, port: number): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn('npm', ['run', '-s', 'start:prod'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before it answered:\n${out}`);
    const up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (up) return { child, url, output: () => out };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not answer /healthz within 120 s:\n${out}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface ProductionServer {
  url: string;
  child: ChildProcess;
  /** The server's environment (the CLI given it reaches the same database). */
  env: NodeJS.ProcessEnv;
  /** Everything the server printed so far. */
  output: () => string;
  /** Stops the server and removes its database. */
  close: () => Promise<void>;
}

/** Starts the production build on a free port and its own database; `env` is added to the server's. */
export async function startProduction(name: string, say: (line: string) => void, env: NodeJS.ProcessEnv = {}): Promise<ProductionServer> {
  const cleanups: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e) => console.error(`[${name}] clean-up: ${(e as Error).message}`));
  };
  try {
    const port = await freePort();
    const serverEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_FORMAT: 'json', ...env };
    const external = process.env.DATABASE_URL;
    if (external) {
      const database = `leadnet_${name.replace(/\W/g, '_')}_${process.pid}`;
      const admin = new Client({ connectionString: external });
      await admin.connect();
      await admin.query(`drop database if exists ${database}`);
      await admin.query(`create database ${database}`);
      await admin.end();
      cleanups.push(async () => {
        const c = new Client({ connectionString: external });
        await c.connect();
        await c.query(`drop database if exists ${database} with (force)`);
        await c.end();
      });
      serverEnv.DATABASE_URL = withDatabase(external, database);
      say(`scratch database ${database} on DATABASE_URL's server`);
    } else {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `leadnet-${name.replace(/\W/g, '-')}-`));
      serverEnv.DATA_DIR = path.join(dataDir, 'data');
      serverEnv.EMBEDDED_PG_PORT = String(await freePort());
      delete serverEnv.DATABASE_URL;
      cleanups.push(async () => {
        // As root the cluster may live elsewhere (src/db/embedded.ts); its pointer file names it, and the
        // cluster's `.origin` record beside it names the data directory.
        const pointer = path.join(serverEnv.DATA_DIR!, 'pg.location');
        if (fs.existsSync(pointer)) {
          const cluster = fs.readFileSync(pointer, 'utf8').trim();
          fs.rmSync(cluster, { recursive: true, force: true });
          fs.rmSync(`${cluster}.origin`, { force: true });
        }
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      say(`embedded PostgreSQL in ${serverEnv.DATA_DIR} on port ${serverEnv.EMBEDDED_PG_PORT}`);
    }
    say('npm run start:prod');
    const server = await startServer(serverEnv, port);
    cleanups.push(() => stopServer(server.child));
    say(`listening on ${server.url}`);
    return { ...server, env: serverEnv, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The demo network seeded through the CLI into the server's database: its company and a key per role. */
export async function seedDemo(server: ProductionServer): Promise<{ company: { id: string }; users: Array<{ role: string; api_key: string }> }> {
  return JSON.parse(await run([process.execPath, 'bin/leadnet.js', 'seed-demo', '--json'], server.env));
}
