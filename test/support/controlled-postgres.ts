import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './service-process';
import { removeCluster } from '../../src/db/embedded';

export interface ControlledPostgres {
  url: string;
  start(): Promise<void>;
  /** A clean stop: connections are closed and the port refuses. */
  stop(): Promise<void>;
  /** SIGSTOP on the postmaster and every backend: connections stay open and nothing answers. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

/** The pids whose parent chain leads to `root` (read from /proc). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) if (parent === pid) (found.push(child), walk(child));
  };
  walk(root);
  return found;
}

/** A dedicated embedded PostgreSQL on a free port, owned by this test file. */
export async function controlledPostgres(): Promise<ControlledPostgres> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-outage-'));
  const dir = path.join(base, 'pg');
  const port = await freePort();
  const child: ChildProcess = fork(path.join(__dirname, 'pg-control.ts'), [dir, String(port)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ask = (cmd: 'start' | 'stop') =>
    new Promise<any>((resolve, reject) => {
      child.once('message', (m: any) => (m.ok ? resolve(m) : reject(new Error(m.error))));
      child.send({ cmd });
    });
  let pid = 0;
  const pids = () => [pid, ...descendants(pid)];
  // A process that has exited since it was listed (the server stopped by a test) is left alone.
  const signal = (sig: NodeJS.Signals) => {
    for (const p of pids()) {
      try {
        process.kill(p, sig);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      }
    }
  };
  const pg: ControlledPostgres = {
    url: '',
    async start() {
      const r = await ask('start');
      pid = r.pid;
      pg.url = r.url;
    },
    async stop() {
      await ask('stop');
    },
    freeze() {
      signal('SIGSTOP');
    },
    thaw() {
      signal('SIGCONT');
    },
    async close() {
      if (pid) signal('SIGCONT');
      child.disconnect();
      await new Promise((resolve) => child.once('exit', resolve));
      // The cluster wherever it lives (as root, relocated out of this 0700 directory), then the directory.
      removeCluster(base);
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}
