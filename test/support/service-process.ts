import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Every JSON log line written so far. */
  lines: Array<Record<string, any>>;
  /** Resolves with the first line matching, within `ms`. */
  waitFor(match: (line: Record<string, any>) => boolean, ms?: number): Promise<Record<string, any>>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `src/main.ts` as a real child process (its own event loop, signals, stdout) with this environment. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, JEST_WORKER_ID: '', LOG_LEVEL: 'info', LOG_FORMAT: 'json', SEED_DEMO: 'false', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, any>> = [];
  const waiters: Array<{ match: (l: Record<string, any>) => boolean; resolve: (l: Record<string, any>) => void }> = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let line: Record<string, any>;
      try {
        line = JSON.parse(text);
      } catch {
        line = { raw: text };
      }
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.match(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (match: (l: Record<string, any>) => boolean, ms = 60_000) => {
    const found = lines.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<Record<string, any>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching log line within ${ms} ms; stderr: ${stderr.slice(-2000)}; last lines: ${JSON.stringify(lines.slice(-5))}`)), ms);
      waiters.push({ match, resolve: (l) => (clearTimeout(timer), resolve(l)) });
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`service exited (${code}) before the expected line; stderr: ${stderr.slice(-2000)}`));
      });
    });
  };
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    lines,
    waitFor,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
