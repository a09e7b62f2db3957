import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

/** The project's root (where `npm start` runs). */
export const ROOT = path.join(__dirname, '..', '..');

/** `npm start`'s command without npm: the real service as a child process. */
export const SERVICE = [process.execPath, '--import', 'tsx', 'src/main.ts'];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When the process exited (Date.now()). */
  at: number;
}

export interface ChildService {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** stdout alone so far. */
  stdout(): string;
  /** stderr alone so far. */
  stderr(): string;
  /** Resolves with the first match of `pattern` in the output; rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Waits for the start-up line and returns the URL it names. */
  ready(): Promise<string>;
  exited: Promise<Exit>;
}

/**
 * Spawns `command` in the project root with the test environment plus `env` (PORT=0, no demo data, JSON
 * logs); a value `undefined` removes a variable. `as` runs it as another user (root only).
 */
export function startChild(env: Record<string, string | undefined>, command: string[] = SERVICE, as?: { uid: number; gid: number }): ChildService {
  const merged = Object.fromEntries(
    Object.entries({ ...process.env, DATABASE_URL: undefined, PORT: '0', SEED_DEMO: 'false', LOG_LEVEL: 'info', ...env }).filter(
      ([, v]) => v !== undefined,
    ),
  ) as NodeJS.ProcessEnv;
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'], ...as });
  children.push(child);
  let out = '';
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    onData(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    onData(chunk);
  });
  const exited = new Promise<Exit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    for (const l of listeners) l();
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(pattern);
        if (m) {
          listeners.delete(check);
          resolve(m);
        } else if (hasExited) {
          listeners.delete(check);
          reject(new Error(`exited before ${pattern}:\n${out}`));
        }
      };
      listeners.add(check);
      check();
    });
  return {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor,
    ready: async () => (await waitFor(/leadnet listening on \S+, (http:\/\/\S+) /))[1],
    exited,
  };
}

const children: ChildProcess[] = [];

/**
 * Stops the children a failed or timed-out case left running (SIGTERM, which also stops their embedded
 * database; SIGKILL after 30 s). Call it in `afterAll`.
 */
export async function stopChildren(): Promise<void> {
  await Promise.all(
    children.splice(0).map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Whether process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until process `pid` is gone; false when it still runs after `ms`. */
export async function gone(pid: number, ms = 20_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

const made: string[] = [];

/** A private temporary directory (0700, like `mktemp -d`), removed by `removePrivateDirs()`. */
export function privateDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  expectMode(dir, 0o700);
  made.push(dir);
  return dir;
}

/** Removes the directories `privateDir` made, and the clusters their `pg.location` pointers name (root). */
export function removePrivateDirs(): void {
  for (const dir of made.splice(0)) {
    for (const sub of ['', 'data']) {
      const pointer = path.join(dir, sub, 'pg.location');
      const cluster = fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : path.join(dir, sub, 'pg');
      // A postmaster a failed case left behind (after kill -9) is stopped too.
      const pidFile = path.join(cluster, 'postmaster.pid');
      const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]) : 0;
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGQUIT');
      if (cluster !== path.join(dir, sub, 'pg')) {
        fs.rmSync(cluster, { recursive: true, force: true });
        fs.rmSync(`${cluster}.origin`, { force: true });
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function expectMode(dir: string, mode: number): void {
  if ((fs.statSync(dir).mode & 0o777) !== mode) throw new Error(`${dir} is not ${mode.toString(8)}`);
}

/**
 * A port for an embedded PostgreSQL of one test: below Linux's ephemeral range (32768-60999), where the
 * run's own outgoing connections take their local ports (one of them once held the port a test had
 * picked), and apart from the run's (global-setup.ts).
 */
export function pgPort(): number {
  return 21000 + Math.floor(Math.random() * 4000);
}

/**
 * A POST /graphql sent up to its headers with `Expect: 100-continue`: resolves `sendBody` once the server
 * answered 100 Continue (it has the request in hand); the body goes when the test says so.
 */
export function requestInFlight(url: string): { accepted: Promise<() => void>; response: Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({ query: '{ me { id } }' });
  let onAccepted!: (send: () => void) => void;
  const accepted = new Promise<() => void>((resolve) => (onAccepted = resolve));
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue', 'x-api-key': 'not-a-key' },
    });
    req.on('continue', () => onAccepted(() => req.end(body)));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.flushHeaders();
  });
  return { accepted, response };
}
