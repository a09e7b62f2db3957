import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { clusterStatus } from '../../src/db/embedded';
import { projectMigrations } from '../../src/db/migration-files';
import { withDatabase } from '../support/global-setup';
import { ROOT, SERVICE, gone, pgPort, privateDir, removePrivateDirs, startChild, stopChildren, type ChildService } from '../support/service';

/**
 * The abuse cases of docs/operations.md ("When things go wrong"), each on the real service started as
 * a child process, as an operator, a crash or another program would treat it.
 */
// Each case starts real processes (and PostgreSQL clusters): slow on a busy machine.
jest.setTimeout(240_000);
afterAll(async () => {
  await stopChildren();
  removePrivateDirs();
});

const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };
/** Whether the user nobody can run this node and read this checkout (not from a checkout under /root). */
const nobodyReaches =
  isRoot &&
  spawnSync('test', ['-r', path.join(ROOT, 'package.json')], NOBODY).status === 0 &&
  spawnSync(process.execPath, ['-e', ''], NOBODY).status === 0;
const asNobody = nobodyReaches ? test : test.skip;
const asRoot = isRoot ? test : test.skip;

function embeddedEnv(dataDir = path.join(privateDir('leadnet-abuse-'), 'data')) {
  return { dataDir, env: { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()) } };
}

/** A data directory under a 0755 parent: reachable by the postgres user and by nobody. */
function openDataDir(): string {
  const parent = privateDir('leadnet-abuse-');
  fs.chmodSync(parent, 0o755);
  return path.join(parent, 'data');
}

async function stop(service: ChildService) {
  service.child.kill('SIGTERM');
  return service.exited;
}

/** The exit of a start that must fail; a start that serves instead fails the case at once. */
async function failedStart(service: ChildService) {
  const outcome = await Promise.race([service.exited, service.ready().then(() => 'served' as const, () => service.exited)]);
  if (outcome === 'served') throw new Error(`expected the start to fail, but it serves:\n${service.output()}`);
  return outcome;
}

/** The one line a failed start printed on stderr (stdout's lines may arrive after it). */
function failureLine(service: ChildService): string {
  const lines = service.stderr().trim().split('\n');
  return lines[lines.length - 1];
}

test('two services started together on one empty data directory: one serves, the other exits 1 naming it; the first keeps serving', async () => {
  const { dataDir, env } = embeddedEnv();
  const services = [startChild(env), startChild(env)];
  const first = await Promise.race(services.map((s) => s.exited.then(() => s)));
  const loser = first;
  const winner = services.find((s) => s !== loser)!;
  expect(await loser.exited).toMatchObject({ code: 1 });
  // Never two initdb or two postmasters on one directory: the loser waited for the winner's start.
  expect(failureLine(loser)).toBe(
    `Could not start the embedded PostgreSQL (${dataDir}/pg, port ${env.EMBEDDED_PG_PORT}): the database is in use by another leadnet process (pid ${winner.child.pid}); stop it first (kill ${winner.child.pid}), or give this instance its own DATA_DIR and EMBEDDED_PG_PORT`,
  );
  const url = await winner.ready();
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  expect(await stop(winner)).toMatchObject({ code: 0 });
  expect(clusterStatus(dataDir).running).toBeUndefined();
});

test('after a crash (kill -9 of the service and of PostgreSQL) the stale postmaster.pid and start lock are removed and the next start recovers', async () => {
  const { dataDir, env } = embeddedEnv();
  const first = startChild(env);
  await first.ready();
  const { dir, running } = clusterStatus(dataDir);
  first.child.kill('SIGKILL');
  await first.exited;
  process.kill(running!.pid, 'SIGKILL');
  expect(await gone(running!.pid)).toBe(true);
  expect(fs.existsSync(path.join(dir, 'postmaster.pid'))).toBe(true); // what the crash leaves
  // And a start lock of a process that died while starting (a power cut during a start).
  fs.writeFileSync(path.join(dataDir, 'pg.starting'), '999999\n');

  const second = startChild(env);
  const url = await second.ready();
  expect(second.output()).toContain(`removed a stale start lock ${dataDir}/pg.starting (process 999999 is gone)`);
  expect(second.output()).toContain(`removed a stale postmaster.pid (process ${running!.pid} is gone or is not a PostgreSQL of this directory)`);
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  expect(await stop(second)).toMatchObject({ code: 0 });
  expect(fs.existsSync(path.join(dataDir, 'pg.starting'))).toBe(false);
});

asNobody('a DATA_DIR the user cannot write: exit 1 with one line naming the directory and the user', async () => {
  const dataDir = openDataDir(); // its parent belongs to root (0755): nobody cannot create it
  const port = pgPort();
  const service = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port), HOME: '/nonexistent' }, SERVICE, NOBODY);
  expect(await failedStart(service)).toMatchObject({ code: 1 });
  expect(failureLine(service)).toBe(
    `Could not start the embedded PostgreSQL (${dataDir}/pg, port ${port}): cannot use the data directory ${dataDir}: permission denied; DATA_DIR must be a directory nobody (uid 65534) can write (or set DATABASE_URL)`,
  );
});

asNobody("a cluster made by a root start is refused to another user, naming its owner, and left as it was", async () => {
  const dataDir = openDataDir();
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()) };
  const root = startChild(env);
  await root.ready();
  expect(await stop(root)).toMatchObject({ code: 0 });
  const cluster = path.join(dataDir, 'pg');
  const owner = fs.statSync(cluster).uid;
  fs.chownSync(dataDir, NOBODY.uid, NOBODY.gid); // nobody may write the data directory, not the cluster

  const other = startChild({ ...env, HOME: '/nonexistent' }, SERVICE, NOBODY);
  expect(await failedStart(other)).toMatchObject({ code: 1 });
  expect(failureLine(other)).toBe(
    `Could not start the embedded PostgreSQL (${cluster}, port ${env.EMBEDDED_PG_PORT}): the cluster directory ${cluster} belongs to postgres (uid ${owner}) (PostgreSQL runs as the user who starts leadnet, nobody (uid 65534)); start leadnet as its owner, or choose another DATA_DIR, or remove it as its owner (npx leadnet data reset)`,
  );
  expect(fs.statSync(cluster).uid).toBe(owner);
  const again = startChild(env);
  await again.ready();
  expect(await stop(again)).toMatchObject({ code: 0 });
});

asRoot("as root, another user's cluster directory is refused, not taken over (its owner is unchanged)", async () => {
  const dataDir = openDataDir();
  const cluster = path.join(dataDir, 'pg');
  fs.mkdirSync(dataDir, { mode: 0o755 }); // reachable by postgres: the cluster is not relocated
  fs.mkdirSync(cluster, { mode: 0o700 });
  fs.writeFileSync(path.join(cluster, 'PG_VERSION'), '18\n');
  fs.chownSync(path.join(cluster, 'PG_VERSION'), NOBODY.uid, NOBODY.gid);
  fs.chownSync(cluster, NOBODY.uid, NOBODY.gid);
  const port = pgPort();
  const service = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
  expect(await failedStart(service)).toMatchObject({ code: 1 });
  expect(failureLine(service)).toBe(
    `Could not start the embedded PostgreSQL (${cluster}, port ${port}): the cluster directory ${cluster} belongs to nobody (uid 65534) (PostgreSQL runs as postgres under root); start leadnet as its owner, or choose another DATA_DIR, or remove it as its owner (npx leadnet data reset)`,
  );
  expect(fs.statSync(cluster).uid).toBe(NOBODY.uid);
});

test('a DATA_DIR that is a file: exit 1 with one line saying so', async () => {
  const dataDir = path.join(privateDir('leadnet-abuse-'), 'data');
  fs.writeFileSync(dataDir, 'not a directory');
  const port = pgPort();
  const service = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) });
  expect(await failedStart(service)).toMatchObject({ code: 1 });
  expect(failureLine(service)).toMatch(
    new RegExp(`^Could not start the embedded PostgreSQL \\(${dataDir}/pg, port ${port}\\): cannot use the data directory ${dataDir}: it exists and is not a directory; DATA_DIR must be a directory .* can write \\(or set DATABASE_URL\\)$`),
  );
});

test('EMBEDDED_PG_PORT held by another program on 127.0.0.1: exit 1 naming the port; no PostgreSQL and no start lock left behind', async () => {
  const { dataDir, env } = embeddedEnv();
  const squatter = net.createServer((socket) => socket.end());
  await new Promise<void>((resolve) => squatter.listen(Number(env.EMBEDDED_PG_PORT), '127.0.0.1', resolve));
  try {
    const service = startChild(env);
    expect(await failedStart(service)).toMatchObject({ code: 1 });
    expect(failureLine(service)).toMatch(
      new RegExp(`^Could not start the embedded PostgreSQL \\(${dataDir}/pg, port ${env.EMBEDDED_PG_PORT}\\): the port is already in use by another program \\(log: .*leadnet-postgres.log\\)$`),
    );
    expect(clusterStatus(dataDir).running).toBeUndefined();
    expect(fs.existsSync(path.join(dataDir, 'pg.starting'))).toBe(false);
  } finally {
    squatter.close();
  }
});

test('PORT held by another program: exit 1 naming it, and the embedded PostgreSQL it had started is stopped', async () => {
  const { dataDir, env } = embeddedEnv();
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(0, resolve));
  const { port } = squatter.address() as net.AddressInfo;
  try {
    const service = startChild({ ...env, PORT: String(port) });
    expect(await failedStart(service)).toMatchObject({ code: 1 });
    expect(service.output()).toContain(`Cannot listen on port ${port}: port ${port} is already in use (PORT=${port})`);
    const { dir } = clusterStatus(dataDir);
    expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(true); // it had started
    expect(clusterStatus(dataDir).running).toBeUndefined();
    expect(fs.existsSync(path.join(dir, 'postmaster.pid'))).toBe(false);
  } finally {
    squatter.close();
  }
});

describe('kill -9 half-way through the migrations', () => {
  const server = process.env.LEADNET_TEST_SERVER_URL!;
  const name = `leadnet_halfway_${randomBytes(5).toString('hex')}`;
  const url = withDatabase(server, name);
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: withDatabase(server, 'postgres') });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const query = async (sql: string) => {
    const c = new Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  beforeAll(() => admin(`create database ${name}`));
  afterAll(() => admin(`drop database if exists ${name} with (force)`));

  test('commits nothing (all migrations are one transaction), and the next start applies them all and serves', async () => {
    // A session that holds a table name a later migration creates: that migration waits on it, with the
    // earlier ones already run in the same transaction. Then the service is killed, as a crash would.
    const blocker = new Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('create table routing_entries (blocker int)');
    const service = startChild({ DATABASE_URL: url });
    let waiting = 0;
    for (let i = 0; i < 1200 && waiting === 0; i++) {
      const [{ n }] = await query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%create table "routing_entries"%'`);
      waiting = n;
      if (!waiting) await new Promise((r) => setTimeout(r, 100));
    }
    expect(waiting).toBe(1);
    service.child.kill('SIGKILL');
    expect(await service.exited).toMatchObject({ signal: 'SIGKILL' });
    await blocker.query('rollback');
    await blocker.end();

    // The first migration's tables were created in the killed transaction: none of them exists.
    expect(await query(`select to_regclass('companies') as companies, to_regclass('leads') as leads`)).toEqual([{ companies: null, leads: null }]);
    const recorded = await query(`select to_regclass('mikro_orm_migrations') is not null as present`);
    if (recorded[0].present) expect(await query('select count(*)::int as n from mikro_orm_migrations')).toEqual([{ n: 0 }]);

    const again = startChild({ DATABASE_URL: url });
    const served = await again.ready();
    expect((await fetch(`${served}/readyz`)).status).toBe(200);
    expect(await query('select count(*)::int as n from mikro_orm_migrations')).toEqual([{ n: projectMigrations().length }]);
    expect(again.stdout().match(/"msg":"migration applied"/g)).toHaveLength(projectMigrations().length);
    expect(await stop(again)).toMatchObject({ code: 0 });
  });
});
