// `npm run fuzz`: the property of test/rest/fuzz.test.ts at scale, against the real service in its own
// process. Creates a database on FUZZ_DATABASE_URL's server (default the local PostgreSQL), seeds a
// network with a user and key of every role, starts `src/main.ts` on it, sends FUZZ_REQUESTS
// (default 10,000) generated requests with FUZZ_CONCURRENCY (default 4) at once, checks /healthz,
// stops the service and drops the database. Exit code 1 on any 5xx, a 4xx body off the contract, a
// request slower than 5 s, or an unhealthy service afterwards. FUZZ_SEED makes a run repeatable.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { Client } from 'pg';
import { initAppOrm } from '../mikro-orm.config';
import { openApiDocument } from '../src/rest/openapi';
import { world } from '../test/support/network';
import * as f from '../test/support/factories';
import { FuzzGenerator, type FuzzRequest } from '../test/support/fuzz';
import { OpenApiValidator } from '../test/support/openapi';
import { Lead } from '../src/modules/lead/lead.entity';
import { LeadActivity } from '../src/modules/lead/lead-activity.entity';
import type { EntityManager } from '@mikro-orm/postgresql';
import { openApiLists } from '../src/modules';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const SLOW_MS = 5_000;
const SERVER = process.env.FUZZ_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin(sql: string): Promise<void> {
  const c = new Client({ connectionString: withDatabase(SERVER, 'postgres') });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** A network with every role, leads with activities in and out of each scope. */
async function seed(url: string) {
  const orm = await initAppOrm(url, { debug: false, logger: () => undefined });
  try {
    const em = orm.em.fork() as EntityManager;
    const w = await world(em);
    const leads: Lead[] = [];
    for (const [i, crl] of [w.crlIn, w.crlSouth, w.crlOtherRetailer, w.crlB].entries()) {
      const lead = em.create(Lead, { name: `Fuzz Lead ${i}`, ownerCompany: crl.company, assignee: crl });
      for (let n = 0; n < 3; n++) em.create(LeadActivity, { lead, type: 'LeadActivity::Note', data: { n } } as any);
      leads.push(lead);
    }
    await em.flush();
    const product = await f.product(em, w.A);
    const activities = await em.find(LeadActivity, {});
    const ids = [w.crA, w.crA2, w.crB, w.crlIn, w.crlSameCr, w.crlSouth, w.crlB, product, ...leads, ...activities].map((x) => x.id);
    return { keys: Object.values(w.keys), ids, companyIds: [w.A.id, w.B.id] };
  } finally {
    await orm.close();
  }
}

async function waitHealthy(base: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function main(): Promise<void> {
  const name = `leadnet_fuzz_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = withDatabase(SERVER, name);
  let child: ReturnType<typeof spawn> | undefined;
  let failed = false;
  try {
    const fuzzWorld = await seed(url);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'src', 'main.ts')], {
      env: { ...process.env, DATABASE_URL: url, PORT: String(port), LOG_LEVEL: 'error', SEARCH_BACKEND: 'postgres' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (!(await waitHealthy(base, 60_000))) throw new Error('the service did not start');

    const doc = openApiDocument();
    const validator = new OpenApiValidator(doc);
    const requests = fc.sample(new FuzzGenerator(doc, fuzzWorld).request(), { numRuns: REQUESTS, seed: SEED });
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let slowest = { ms: 0, what: '' };
    let next = 0;
    const started = Date.now();

    const one = async (req: FuzzRequest) => {
      const t0 = performance.now();
      let status: number;
      let body: unknown;
      try {
        const res = await fetch(base + req.url, { method: req.method.toUpperCase(), headers: req.headers, body: req.body, signal: AbortSignal.timeout(30_000) });
        status = res.status;
        const text = await res.text();
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = text;
        }
      } catch (e) {
        problems.push(`no answer (${(e as Error).message}) for ${req.method.toUpperCase()} ${req.url.slice(0, 200)}`);
        return;
      }
      const ms = performance.now() - t0;
      if (ms > slowest.ms) slowest = { ms, what: `${req.method.toUpperCase()} ${req.route} -> ${status}` };
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) problems.push(`${status} for ${req.method.toUpperCase()} ${req.url.slice(0, 200)} body ${String(req.body).slice(0, 200)}`);
      else if (status >= 400) {
        try {
          validator.assert(req.method, req.url, status, body);
        } catch (e) {
          problems.push((e as Error).message.slice(0, 500));
        }
      }
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) await one(requests[next++]);
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const healthy = await waitHealthy(base, 5_000);
    const fivexx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    console.log(
      JSON.stringify(
        {
          requests: requests.length,
          seed: SEED,
          concurrency: CONCURRENCY,
          seconds,
          statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
          fivexx,
          slowest_ms: Math.round(slowest.ms),
          slowest: slowest.what,
          healthy_after: healthy,
          problems: problems.slice(0, 20),
          problem_count: problems.length,
        },
        null,
        2,
      ),
    );
    failed = problems.length > 0 || fivexx > 0 || slowest.ms >= SLOW_MS || !healthy;
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await admin(`drop database if exists ${name} with (force)`);
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
