// `npm run search:cluster` as a developer runs it: a green three-node cluster, replicas on other nodes,
// and nothing left after SIGTERM (no JVM, no data directory). Needs Java 17 and Maven, so it runs
// with the engine suites: SEARCH_CLUSTER=1 (OpenSearch) or SEARCH_CLUSTER=elasticsearch, for that engine's launcher.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { clusterEngine, startSearchCluster } from '../support/search-cluster';

const ROOT = path.join(__dirname, '..', '..');
const engine = clusterEngine();
const run = engine ? describe : describe.skip;

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const json = async (url: string, init?: RequestInit) => (await fetch(url, { ...init, headers: { 'content-type': 'application/json' } })).json() as Promise<any>;

/** Resolves with the whole line of stdout that starts with `text`. */
const waitForLine = (child: ChildProcess, text: string) =>
  new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith(text));
      if (line) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before "${text}":\n${out}`)));
  });

// Generous: a first run builds the launcher with Maven, and the machine may be busy.
const TIMEOUT = 300_000;
const children: ChildProcess[] = [];
afterAll(() => {
  // A failed test must not leave a cluster running.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
});

run(`npm run search:cluster (${engine})`, () => {
  test('serves a green three-node cluster on SEARCH_CLUSTER_PORT, places replicas on other nodes, and SIGTERM leaves nothing behind', async () => {
    const port = 24000 + Math.floor(Math.random() * 900);
    const child = spawn('npm', ['run', '--silent', 'search:cluster'], {
      cwd: ROOT,
      env: { ...process.env, SEARCH_CLUSTER_ENGINE: engine, SEARCH_CLUSTER_PORT: String(port), SEARCH_CLUSTER_TRANSPORT_PORT: String(port + 1000) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = await waitForLine(child, 'search cluster green');
    const dataDir = /data in (\S+),/.exec(line)![1];
    expect(fs.existsSync(dataDir)).toBe(true);

    const url = `http://127.0.0.1:${port}`;
    const health = await json(`${url}/_cluster/health`);
    expect(health).toMatchObject({ status: 'green', number_of_nodes: 3, number_of_data_nodes: 3 });
    await json(`${url}/replicated`, { method: 'PUT', body: JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 2 } }) });
    expect(await json(`${url}/_cluster/health/replicated?wait_for_status=green&timeout=60s`)).toMatchObject({ status: 'green', active_shards: 3 });
    const shards: Array<{ prirep: string; node: string }> = await json(`${url}/_cat/shards/replicated?format=json`);
    expect(new Set(shards.map((s) => s.node)).size).toBe(3);
    for (const p of [port, port + 1, port + 2]) expect(await listening(p)).toBe(true);

    child.kill('SIGTERM');
    await exited;
    for (const p of [port, port + 1, port + 2, port + 1000]) expect(await listening(p)).toBe(false);
    expect(fs.existsSync(dataDir)).toBe(false);
  }, TIMEOUT);

  test('started for tests, it stops and starts one node on command, and stops when its parent goes away (its stdin closes)', async () => {
    const cluster = await startSearchCluster(engine);
    children.push(cluster.child);
    const port = Number(new URL(cluster.url).port);
    expect(await listening(port)).toBe(true);
    // Its stdin also takes commands (test/search/engine-cluster-failures.test.ts stops and starts nodes).
    expect(await cluster.command('stop node-9')).toBe('command failed: expected `stop node-N` or `start node-N` (N from 1 to 3), not `stop node-9`');
    expect(await cluster.command('start node-2')).toBe('command failed: node-2 is running');
    expect(await cluster.command('stop node-3')).toBe('node-3 stopped');
    expect(await listening(port + 2)).toBe(false);
    expect(await cluster.command('start node-3')).toBe('node-3 started');
    expect(await listening(port + 2)).toBe(true);
    const exited = new Promise((resolve) => cluster.child.once('exit', resolve));
    // What the kernel does for a parent killed with SIGKILL.
    cluster.child.stdin!.end();
    await exited;
    expect(await listening(port)).toBe(false);
  }, TIMEOUT);

  test('a port already taken (a cluster running there) or a malformed one: one line on stderr, exit 1, no node started', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const taken = (server.address() as net.AddressInfo).port;
    const launch = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('npm', ['run', '--silent', 'search:cluster'], { cwd: ROOT, env: { ...process.env, SEARCH_CLUSTER_ENGINE: engine, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d) => (stdout += d));
        child.stderr!.on('data', (d) => (stderr += d));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
    try {
      // The HTTP port of the second node is taken.
      const busy = await launch({ SEARCH_CLUSTER_PORT: String(taken - 1), SEARCH_CLUSTER_TRANSPORT_PORT: String(taken + 1000) });
      expect(busy.code).toBe(1);
      const lines = busy.stderr.split('\n').filter((l) => l.includes('search cluster'));
      expect(lines).toEqual([expect.stringContaining(`search cluster failed to start: 127.0.0.1 port ${taken} already in use`)]);
      expect(busy.stderr).not.toMatch(/\n\s+at /);
      expect(busy.stdout).not.toMatch(/green/);

      const malformed = await launch({ SEARCH_CLUSTER_PORT: '92OO' });
      expect(malformed.code).toBe(1);
      expect(malformed.stderr).toContain('search cluster failed to start: SEARCH_CLUSTER_PORT must be a whole number, not 92OO');
      expect(malformed.stderr).not.toMatch(/\n\s+at /);
    } finally {
      server.close();
    }
  }, TIMEOUT);
});
