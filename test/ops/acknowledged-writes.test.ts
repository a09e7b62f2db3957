import fs from 'node:fs';
import path from 'node:path';
import { descendants } from '../support/controlled-postgres';
import { runLeadnet } from '../support/cli';
import { pgPort, privateDir, removePrivateDirs, startChild, stopChildren, type ChildService } from '../support/service';

/**
 * What a partner is told is written stays written: the real service on its embedded PostgreSQL (fsync on,
 * as `npm start` runs it), ten partners' connections creating leads, and a `kill -9` of the service, then
 * of PostgreSQL itself (the postmaster and every backend at once), in the middle of the stream. After a
 * restart, every lead whose 201 reached a client is stored; requests that got no answer may or may not be.
 */
jest.setTimeout(300_000);
afterAll(async () => {
  await stopChildren();
  removePrivateDirs();
});

const dataDir = path.join(privateDir('leadnet-acked-'), 'data');
const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()), RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', GEOCODER: 'offline' };

function postmasterPid(): number {
  const pointer = path.join(dataDir, 'pg.location');
  const cluster = fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : path.join(dataDir, 'pg');
  return Number(fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * Ten connections creating leads until `stop()`: the ids of the 201s, and how many requests got no answer
 * or another status (a request is given up after 20 s). `reach(count)` resolves once `count` leads are
 * acknowledged, and fails when the creates are refused instead.
 */
function createStream(url: string, key: string, label: string) {
  const acked: string[] = [];
  let unanswered = 0;
  let lastRefusal = '';
  let stopped = false;
  let n = 0;
  const worker = async () => {
    while (!stopped) {
      const i = n++;
      const body = JSON.stringify({ lead: { name: `${label} ${i}`, emails: [{ email: `${label.replace(/\W/g, '-').toLowerCase()}-${i}@acked.example` }] } });
      const res = await fetch(`${url}/v1/leads`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(20_000) }).catch(() => null);
      const answer = res && res.status === 201 ? ((await res.json().catch(() => null)) as { id?: string } | null) : null;
      if (answer?.id) acked.push(answer.id);
      else {
        unanswered++;
        lastRefusal = res ? `${res.status} ${await res.text().catch(() => '')}` : 'no answer';
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const workers = Promise.all(Array.from({ length: 10 }, worker));
  return {
    acked,
    unanswered: () => unanswered,
    async reach(count: number) {
      while (acked.length < count) {
        if (unanswered > 100) {
          stopped = true;
          throw new Error(`${unanswered} creates refused before ${count} were acknowledged; the last: ${lastRefusal}`);
        }
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async stop() {
      stopped = true;
      await workers;
    },
  };
}

/** The ids of `ids` the service does not find (GET /v1/leads/{id} other than 200). */
async function missing(url: string, key: string, ids: readonly string[]): Promise<string[]> {
  const lost: string[] = [];
  for (let i = 0; i < ids.length; i += 20) {
    const statuses = await Promise.all(ids.slice(i, i + 20).map((id) => fetch(`${url}/v1/leads/${id}`, { headers: { 'x-api-key': key } }).then((r) => r.status)));
    statuses.forEach((s, j) => s !== 200 && lost.push(ids[i + j]));
  }
  return lost;
}

let service: ChildService;
let url: string;
let key: string;

beforeAll(async () => {
  service = startChild(env);
  url = await service.ready();
  const seeded = await runLeadnet(['seed-demo', '--json'], env);
  expect(seeded.code).toBe(0);
  key = JSON.parse(seeded.stdout).users.find((u: { role: string }) => u.role === 'company_admin').api_key;
});

test('kill -9 of the service in the middle of ten connections creating leads: every acknowledged lead is stored', async () => {
  const stream = createStream(url, key, 'Service killed');
  await stream.reach(60);
  service.child.kill('SIGKILL');
  await service.exited;
  await stream.stop();
  const acked = [...stream.acked];
  // Requests were cut off in flight: the kill came in the middle of the stream, not after it.
  expect(stream.unanswered()).toBeGreaterThan(0);

  service = startChild(env);
  url = await service.ready();
  expect(await missing(url, key, acked)).toEqual([]);
});

test('kill -9 of PostgreSQL (the postmaster and every backend) in the middle of the stream: after recovery every acknowledged lead is stored', async () => {
  const stream = createStream(url, key, 'Database killed');
  await stream.reach(60);
  const postmaster = postmasterPid();
  const pids = [postmaster, ...descendants(postmaster)];
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  // The service answers 503 while its database is gone; the stream goes on a moment against it.
  await new Promise((r) => setTimeout(r, 500));
  await stream.stop();
  const acked = [...stream.acked];
  expect(stream.unanswered()).toBeGreaterThan(0);

  // The next start finds the crashed cluster, and PostgreSQL replays its write-ahead log.
  service.child.kill('SIGKILL');
  await service.exited;
  service = startChild(env);
  url = await service.ready();
  expect(await missing(url, key, acked)).toEqual([]);
});
