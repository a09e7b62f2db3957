import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const NODES = 3;

export interface SearchCluster {
  url: string;
  /** HTTP port of the first node (node i: + i - 1; transport ports 1000 above). */
  port: number;
  child: ChildProcess;
  /** Seconds from spawning the launcher to a green cluster (the launcher builds itself first if it changed). */
  startSeconds: number;
  /** Sends a command to the launcher (`stop node-2`, `start node-2`) and resolves with the line that answers it. */
  command(line: string): Promise<string>;
  /** SIGTERM: the nodes close, and the launcher removes a data directory it made. */
  stop(): Promise<void>;
  /** SIGKILL: the JVM dies at once, as in a crash or a power cut; a given data directory stays as it was left. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** HTTP port of the first node (a free one by default): a cluster started again on the same ports. */
  port?: number;
  /** A data directory kept across starts (SEARCH_CLUSTER_DATA): a cluster restarted from its data. */
  dataDir?: string;
  timeoutMs?: number;
}

/** Whether `port` can be bound on 127.0.0.1 now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port with room for every node's HTTP port and, 1000 above, its transport port. */
async function basePort(): Promise<number> {
  for (;;) {
    // Below Linux's ephemeral range, where outgoing connections take their local ports.
    const port = 22000 + Math.floor(Math.random() * 2000);
    const ports = Array.from({ length: NODES }, (_, i) => [port + i, port + 1000 + i]).flat();
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return port;
  }
}

export type ClusterEngine = 'opensearch' | 'elasticsearch';

/**
 * The engine of the cluster the engine suites run on, from `SEARCH_CLUSTER`: `1` or `opensearch` for
 * OpenSearch, `elasticsearch` for Elasticsearch; none when it is unset.
 */
export function clusterEngine(env: NodeJS.ProcessEnv = process.env): ClusterEngine | undefined {
  const value = env.SEARCH_CLUSTER;
  if (!value || value === '0') return undefined;
  if (value === '1' || value === 'opensearch') return 'opensearch';
  if (value === 'elasticsearch') return 'elasticsearch';
  throw new Error(`SEARCH_CLUSTER must be 1, opensearch or elasticsearch, not ${value}`);
}

/**
 * Starts one of the project's three-node clusters (`npm run search:cluster`, search-cluster/; OpenSearch
 * or Elasticsearch) on free loopback ports and resolves once it is green. `stop` sends SIGTERM and
 * resolves when the JVM has exited (it removes its data directory itself).
 */
export async function startSearchCluster(engine: ClusterEngine = 'opensearch', options: StartOptions = {}): Promise<SearchCluster> {
  const { timeoutMs = 300_000 } = options;
  const port = options.port ?? (await basePort());
  const started = Date.now();
  const child = spawn(path.join(ROOT, 'search-cluster', 'run'), [], {
    cwd: ROOT,
    env: {
      ...process.env,
      SEARCH_CLUSTER_PORT: String(port),
      SEARCH_CLUSTER_TRANSPORT_PORT: String(port + 1000),
      SEARCH_CLUSTER_NODES: String(NODES),
      SEARCH_CLUSTER_ENGINE: engine,
      // The JVM stops when this process's end of its stdin closes, however this process ends.
      SEARCH_CLUSTER_STOP_ON_EOF: '1',
      ...(options.dataDir ? { SEARCH_CLUSTER_DATA: options.dataDir } : {}),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stderr!.on('data', (d) => (output = (output + d).slice(-20_000)));
  // Whole lines of stdout, each to the first waiter that takes it.
  const waiters: Array<(line: string) => boolean> = [];
  let partial = '';
  child.stdout!.on('data', (d) => {
    const lines = (partial + d).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const i = waiters.findIndex((take) => take(line));
      if (i >= 0) waiters.splice(i, 1);
    }
  });
  const green = new Promise<void>((resolve, reject) => {
    waiters.push((line) => line.startsWith('search cluster green') && (resolve(), true));
    exited.then((code) => reject(new Error(`search cluster exited (${code}) before it was green:\n${output}`)));
  });
  const command = (line: string) =>
    new Promise<string>((resolve) => {
      const [verb, name] = line.split(' ');
      waiters.push((answer) => (answer === `${name} ${verb === 'stop' ? 'stopped' : 'started'}` || answer.startsWith('command failed')) && (resolve(answer), true));
      child.stdin!.write(`${line}\n`);
    });
  const end = (signal: NodeJS.Signals) => async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const stop = end('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      green,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`search cluster not green within ${timeoutMs} ms:\n${output}`)), timeoutMs))),
    ]);
  } catch (e) {
    await stop();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return { url: `http://127.0.0.1:${port}`, port, child, startSeconds: (Date.now() - started) / 1000, command, stop, kill: end('SIGKILL') };
}
