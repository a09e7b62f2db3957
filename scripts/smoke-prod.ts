/**
 * `npm run smoke:prod`: builds (`npm run build`), starts the production server with `npm run start:prod`
 * (`node dist/src/main.js`, as a deployment does) on a free port, seeds the demo network, and checks every page and asset
 * over HTTP and in Chromium (scripts/smoke/checks.ts); then stops everything it started. Exit code 0 only
 * when every check passed.
 *
 * The database: without DATABASE_URL, the server starts its own embedded PostgreSQL (as `npm start`
 * does) in a temporary DATA_DIR on a free port, removed afterwards. With DATABASE_URL, a scratch database
 * is created on that server (`leadnet_smoke_<pid>`, the user needs CREATEDB) and dropped afterwards.
 *
 * Options: `--no-build` uses the existing dist/.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { smokeCheck } from './smoke/checks';

const ROOT = path.join(__dirname, '..');

function run(command: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
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

/** Starts the service as a deployment does, `npm run start:prod`, on `port`; resolves once it answers /healthz. */
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

async function main(): Promise<number> {
  const started = Date.now();
  const cleanups: Array<() => Promise<void>> = [];
  const say = (line: string) => console.log(`[smoke:prod] ${line}`);
  try {
    if (!process.argv.includes('--no-build')) {
      say('npm run build');
      await run(['npm', 'run', '-s', 'build']);
    }
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_FORMAT: 'json' };
    const external = process.env.DATABASE_URL;
    if (external) {
      const name = `leadnet_smoke_${process.pid}`;
      const admin = new Client({ connectionString: external });
      await admin.connect();
      await admin.query(`drop database if exists ${name}`);
      await admin.query(`create database ${name}`);
      await admin.end();
      cleanups.push(async () => {
        const c = new Client({ connectionString: external });
        await c.connect();
        await c.query(`drop database if exists ${name} with (force)`);
        await c.end();
      });
      env.DATABASE_URL = withDatabase(external, name);
      say(`scratch database ${name} on DATABASE_URL's server`);
    } else {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-smoke-'));
      env.DATA_DIR = path.join(dataDir, 'data');
      env.EMBEDDED_PG_PORT = String(await freePort());
      delete env.DATABASE_URL;
      cleanups.push(async () => {
        // As root the cluster may live elsewhere (src/db/embedded.ts); its pointer file names it.
        const pointer = path.join(env.DATA_DIR!, 'pg.location');
        if (fs.existsSync(pointer)) fs.rmSync(fs.readFileSync(pointer, 'utf8').trim(), { recursive: true, force: true });
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
      say(`embedded PostgreSQL in ${env.DATA_DIR} on port ${env.EMBEDDED_PG_PORT}`);
    }

    say('npm run start:prod');
    const server = await startServer(env, port);
    cleanups.push(() => stopServer(server.child));
    say(`listening on ${server.url}`);

    // The demo network through the CLI, on the same database (the running server's embedded one).
    const seed = JSON.parse(await run([process.execPath, 'bin/leadnet.js', 'seed-demo', '--json'], env)) as {
      company: { id: string };
      users: Array<{ role: string; api_key: string }>;
    };
    const apiKey = seed.users.find((u) => u.role === 'company_admin')!.api_key;

    const report = await smokeCheck({ url: server.url, companyId: seed.company.id, apiKey, metricsToken: process.env.METRICS_TOKEN }, (line) => say(line));
    const errors = server.output().split('\n').filter((l) => /"level":(50|60)/.test(l));
    if (errors.length) report.failures.push(`the server logged errors:\n${errors.join('\n')}`);
    say(`${report.passed.length} checks passed, ${report.failures.length} failed (${Math.round((Date.now() - started) / 1000)} s)`);
    for (const f of report.failures) console.error(`[smoke:prod] FAILED: ${f}`);
    return report.failures.length ? 1 : 0;
  } catch (e) {
    console.error(`[smoke:prod] FAILED: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e) => console.error(`[smoke:prod] clean-up: ${(e as Error).message}`));
  }
}

void main().then((code) => process.exit(code));
