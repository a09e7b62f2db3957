import fs from 'node:fs';
import path from 'node:path';
import { alive, gone, pgPort, privateDir, removePrivateDirs, requestInFlight, startChild, stopChildren, type ChildService } from '../support/service';

/**
 * The real service with its embedded PostgreSQL (a 0700 DATA_DIR, as `mktemp -d` makes), killed and
 * signalled as an operator, a container or npm would.
 */
// Each case starts real processes (and PostgreSQL clusters): slow on a busy machine.
jest.setTimeout(180_000);
afterAll(async () => {
  await stopChildren();
  removePrivateDirs();
});

/** The cluster directory of a DATA_DIR (the `.location` pointer when it was relocated for postgres). */
function clusterDir(dataDir: string): string {
  const pointer = path.join(dataDir, 'pg.location');
  return fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : path.join(dataDir, 'pg');
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function embeddedEnv() {
  const dataDir = path.join(privateDir('leadnet-service-'), 'data');
  return { dataDir, env: { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()) } };
}

async function stop(service: ChildService) {
  service.child.kill('SIGTERM');
  return service.exited;
}

test('after kill -9 the next start stops the orphaned PostgreSQL and starts; SIGTERM then drains a request that needs the database before stopping it', async () => {
  const { dataDir, env } = embeddedEnv();
  const first = startChild(env);
  await first.ready();
  const orphan = postmasterPid(dataDir);
  first.child.kill('SIGKILL');
  await first.exited;
  expect(alive(orphan)).toBe(true); // what kill -9 leaves

  const second = startChild(env);
  const url = await second.ready();
  expect(second.output()).toContain(`stopping PostgreSQL (pid ${orphan}) left running by a previous run`);
  expect(alive(orphan)).toBe(false);
  const postmaster = postmasterPid(dataDir);

  const inFlight = requestInFlight(url);
  const sendBody = await inFlight.accepted;
  second.child.kill('SIGTERM');
  await second.waitFor(/"msg":"shutting down"/);
  sendBody();
  expect((await inFlight.response).status).toBeLessThan(500);
  const exit = await second.exited;
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(await gone(postmaster)).toBe(true);
});

test('a second service on the same data directory says which process uses it and exits 1; the first keeps serving', async () => {
  const { env } = embeddedEnv();
  const first = startChild(env);
  const url = await first.ready();
  const second = startChild({ ...env });
  expect(await second.exited).toMatchObject({ code: 1 });
  expect(second.output()).toContain(`the database is in use by another leadnet process (pid ${first.child.pid}); stop it first (kill ${first.child.pid})`);
  expect((await fetch(`${url}/readyz`)).status).toBe(200);
  expect(await stop(first)).toMatchObject({ code: 0 });
});

test('SIGTERM to `npm start` (as a container sends it) stops node and PostgreSQL', async () => {
  const { dataDir, env } = embeddedEnv();
  const npm = startChild(env, ['npm', 'start']);
  await npm.ready();
  const node = Number((await npm.waitFor(/"pid":(\d+)/))[1]);
  const postmaster = postmasterPid(dataDir);
  expect(node).not.toBe(npm.child.pid);
  // The script caps V8's old generation (LEADNET_HEAP_MB, default 192 MB: README, Operations).
  expect(fs.readFileSync(`/proc/${node}/cmdline`, 'utf8').split('\0')).toContain('--max-old-space-size=192');

  npm.child.kill('SIGTERM');
  await npm.exited;
  expect(await gone(node)).toBe(true);
  expect(await gone(postmaster)).toBe(true);
  expect(npm.output()).toContain('"msg":"stopped"');
});
