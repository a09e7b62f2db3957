import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterStatus, pruneClusters, relocatedClusters, removeCluster } from '../../src/db/embedded';
import { runLeadnet, type CliRun } from '../support/cli';
import { ROOT, pgPort, privateDir, removePrivateDirs, startChild, stopChildren, type ChildService } from '../support/service';

/**
 * Where the embedded database lives and how to start afresh (docs/operations.md, "Data"): the real
 * service and the real `leadnet` bin as child processes on a private DATA_DIR (0700, like `mktemp -d`:
 * as root, the cluster is relocated under /var/lib/leadnet/clusters).
 */
// Each case starts real processes (and PostgreSQL clusters): slow on a busy machine.
jest.setTimeout(240_000);
afterAll(async () => {
  await stopChildren();
  removePrivateDirs();
});

const asRoot = process.getuid?.() === 0 ? test : test.skip;

/** The `leadnet` bin with only DATA_DIR set: no DATABASE_URL, no EMBEDDED_PG_PORT. */
function leadnet(dataDir: string, args: string[]): Promise<CliRun> {
  return runLeadnet(args, { DATA_DIR: dataDir, DATABASE_URL: undefined, EMBEDDED_PG_PORT: undefined }, { cwd: ROOT });
}

async function stop(service: ChildService) {
  service.child.kill('SIGTERM');
  return service.exited;
}

test('the CLI finds the service on the port it was started with; data path names the cluster; reset refuses while it runs, then starts afresh', async () => {
  const dataDir = path.join(privateDir('leadnet-data-'), 'data');
  const port = pgPort();
  const service = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
  await service.ready();
  const cluster = clusterStatus(dataDir).dir;
  // Every start says where the data is and how to start afresh.
  expect(service.output()).toContain(`data: embedded PostgreSQL in ${cluster} (DATA_DIR ${dataDir}), port ${port}; to start afresh, stop the service and run: npx leadnet data reset`);

  // Without EMBEDDED_PG_PORT the CLI reads the port from the cluster's postmaster.pid.
  const bootstrap = await leadnet(dataDir, ['bootstrap', '--email', 'ops@example.test', '--json']);
  expect(bootstrap).toMatchObject({ code: 0 });
  const listed = await leadnet(dataDir, ['users', 'list', '--json']);
  expect(JSON.parse(listed.stdout).users.map((u: { email: string }) => u.email)).toEqual(['ops@example.test']);
  const where = await leadnet(dataDir, ['data', 'path', '--json']);
  expect(JSON.parse(where.stdout)).toEqual({
    data_dir: dataDir,
    cluster_dir: cluster,
    relocated: cluster !== path.join(dataDir, 'pg'),
    exists: true,
    running: { postgres_pid: expect.any(Number), port, ready: true, leadnet_pid: service.child.pid },
    starting_pid: null,
  });

  const refused = await leadnet(dataDir, ['data', 'reset', '--json']);
  expect(refused.code).toBe(1);
  expect(JSON.parse(refused.stderr).error.message).toContain(`it is in use by leadnet process ${service.child.pid}`);
  expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
  expect((await fetch(`${await service.ready()}/readyz`)).status).toBe(200);

  expect(await stop(service)).toMatchObject({ code: 0 });
  const reset = await leadnet(dataDir, ['data', 'reset', '--json']);
  expect(reset).toMatchObject({ code: 0 });
  expect(JSON.parse(reset.stdout).removed).toContain(cluster);
  expect(fs.existsSync(cluster)).toBe(false);
  expect(JSON.parse((await leadnet(dataDir, ['data', 'path', '--json'])).stdout)).toMatchObject({ exists: false, running: null });

  // The next start creates a new database: every migration runs again and the operator is gone.
  const again = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
  await again.ready();
  expect(again.output()).toContain('"msg":"migration applied"');
  const users = await leadnet(dataDir, ['users', 'list', '--json']);
  expect(users).toMatchObject({ code: 0 });
  expect(JSON.parse(users.stdout).users).toEqual([]);
  expect(await stop(again)).toMatchObject({ code: 0 });
});

asRoot('as root, deleting a data directory whose cluster was relocated resets it too: its old cluster is not taken up again', async () => {
  const dataDir = path.join(privateDir('leadnet-data-'), 'data');
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()) };
  const first = startChild(env);
  await first.ready();
  const cluster = clusterStatus(dataDir).dir;
  expect(cluster.startsWith('/var/lib/leadnet/clusters/')).toBe(true);
  expect(fs.readFileSync(`${cluster}.origin`, 'utf8').trim()).toBe(dataDir);
  expect(await leadnet(dataDir, ['bootstrap', '--email', 'ops@example.test', '--json'])).toMatchObject({ code: 0 });
  expect(await stop(first)).toMatchObject({ code: 0 });

  fs.rmSync(dataDir, { recursive: true, force: true });
  const second = startChild(env);
  await second.ready();
  expect(second.output()).toContain(`removed ${cluster}, the cluster of a deleted earlier ${dataDir} (no pg.location): starting afresh`);
  expect(JSON.parse((await leadnet(dataDir, ['users', 'list', '--json'])).stdout).users).toEqual([]);
  expect(await stop(second)).toMatchObject({ code: 0 });
});

test("prune removes root's relocated clusters whose data directory is gone, and nothing else", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-home-'));
  try {
    const clusters = path.join(home, 'clusters');
    const make = (name: string, origin?: string) => {
      fs.mkdirSync(path.join(clusters, name), { recursive: true });
      fs.writeFileSync(path.join(clusters, name, 'PG_VERSION'), '18\n');
      if (origin) fs.writeFileSync(path.join(clusters, `${name}.origin`), `${origin}\n`);
      return path.join(clusters, name);
    };
    const gone = make('aaaaaaaaaaaaaaaa', path.join(home, 'deleted-checkout', '.data'));
    const liveData = path.join(home, 'checkout', '.data');
    const live = make('bbbbbbbbbbbbbbbb', liveData);
    fs.mkdirSync(liveData, { recursive: true });
    fs.writeFileSync(path.join(liveData, 'pg.location'), `${live}\n`);
    const unrecorded = make('cccccccccccccccc');
    const dangling = path.join(clusters, 'dddddddddddddddd.origin'); // its cluster was removed by hand
    fs.writeFileSync(dangling, '/somewhere/.data\n');

    expect(relocatedClusters(home).map((c) => [c.dir, c.orphaned])).toEqual([
      [gone, true],
      [live, false],
      [unrecorded, false],
    ]);
    expect(pruneClusters(home).map((c) => c.dir)).toEqual([gone]);
    expect([gone, `${gone}.origin`].map((p) => fs.existsSync(p))).toEqual([false, false]);
    expect([live, unrecorded, dangling].map((p) => fs.existsSync(p))).toEqual([true, true, false]);
    expect(clusterStatus(liveData, home)).toMatchObject({ dir: live, relocated: true, exists: true });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('a pg.location naming a directory leadnet did not make is not followed, and reset never removes it', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-home-'));
  try {
    const victim = path.join(home, 'precious');
    fs.mkdirSync(victim);
    fs.writeFileSync(path.join(victim, 'keep'), 'me');
    const dataDir = path.join(home, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'pg.location'), `${victim}\n`);

    expect(clusterStatus(dataDir, home)).toMatchObject({ dir: path.join(dataDir, 'pg'), relocated: false });
    expect(removeCluster(dataDir, { home })).toEqual([path.join(dataDir, 'pg.location')]);
    expect(fs.readFileSync(path.join(victim, 'keep'), 'utf8')).toBe('me');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
