/**
 * Database outage figures (`npm run bench:outage`), README "Database outages". Not a test: it starts a
 * PostgreSQL of its own (embedded, on a free port) and the service as a child process on it with the
 * default DB_* settings, sends writes at a fixed rate (POST /v1/products, open loop) and polls /readyz,
 * and meanwhile (1) stops PostgreSQL for 10 s, then (2) freezes it (SIGSTOP, postmaster and backends)
 * for 15 s. It prints the statuses, the latencies, the acknowledged writes missing afterwards, and how
 * long after the database's return the first write succeeded. Bounded: about 70 s in all.
 *
 * Environment: OUTAGE_RATE writes per second (20), OUTAGE_STOP_S (10), OUTAGE_FREEZE_S (15).
 */
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded';
import { initAppOrm } from '../mikro-orm.config';
import { Role } from '../src/modules/user/role';
import * as f from '../test/support/factories';
import { descendants } from '../test/support/controlled-postgres';
import { freePort, startService } from '../test/support/service-process';

const RATE = Number(process.env.OUTAGE_RATE ?? 20);
const STOP_S = Number(process.env.OUTAGE_STOP_S ?? 10);
const FREEZE_S = Number(process.env.OUTAGE_FREEZE_S ?? 15);

interface Sample {
  at: number;
  ms: number;
  status: number;
  id?: string;
  retryAfter?: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-outage-bench-'));
  const dir = path.join(base, 'pg');
  const port = await freePort();
  let db: EmbeddedDatabase = await startEmbeddedPostgres(dir, port, true);
  const orm = await initAppOrm(db.url, { debug: false });
  const em = orm.em.fork() as EntityManager;
  const company = await f.company(em, 'Outage Bench');
  const { key } = await f.userWithKey(em, Role.CompanyAdmin, company);
  await orm.close();
  const service = await startService({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${service.url}/readyz`).then((r) => r.status === 200, () => false);
    if (up) break;
    await sleep(100);
  }

  let n = 0;
  const write = async (samples: Sample[]) => {
    const at = Date.now();
    const sku = `OUT-${++n}`;
    try {
      const res = await fetch(`${service.url}/v1/products`, {
        method: 'POST',
        headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ product: { sku, name: sku } }),
        signal: AbortSignal.timeout(60_000),
      });
      const body: any = await res.json().catch(() => null);
      samples.push({ at, ms: Date.now() - at, status: res.status, id: res.status === 201 ? body.id : undefined, retryAfter: res.headers.get('retry-after') });
    } catch {
      samples.push({ at, ms: Date.now() - at, status: 0 });
    }
  };
  const ready = async (samples: Sample[]) => {
    const at = Date.now();
    const res = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(30_000) }).catch(() => null);
    samples.push({ at, ms: Date.now() - at, status: res?.status ?? 0 });
  };

  /** Writes at RATE per second and /readyz once a second for `seconds`, with `during` run meanwhile. */
  async function scenario(seconds: number, during: () => Promise<number>) {
    const writes: Sample[] = [];
    const probes: Sample[] = [];
    const pending: Promise<void>[] = [];
    const w = setInterval(() => pending.push(write(writes)), 1000 / RATE);
    const r = setInterval(() => pending.push(ready(probes)), 1000);
    const back = await during();
    const end = Date.now() + seconds * 1000;
    while (Date.now() < end) await sleep(100);
    clearInterval(w);
    clearInterval(r);
    await Promise.all(pending);
    return { writes, probes, back };
  }

  function report(title: string, { writes, probes, back }: { writes: Sample[]; probes: Sample[]; back: number }, ids: Set<string>) {
    const statuses: Record<string, number> = {};
    for (const s of writes) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    const acked = writes.filter((s) => s.status === 201);
    const lost = acked.filter((s) => !ids.has(s.id!)).length;
    const firstOk = writes.filter((s) => s.status === 201 && s.at >= back).sort((a, b) => a.at + a.ms - (b.at + b.ms))[0];
    const max = Math.max(...writes.map((s) => s.ms));
    const over = (ms: number) => writes.filter((s) => s.ms > ms).length;
    const unavailable = writes.filter((s) => s.status === 503);
    console.log(`\n${title}`);
    console.log(`  writes sent ${writes.length}, statuses ${JSON.stringify(statuses)}`);
    console.log(`  503 with Retry-After: ${unavailable.filter((s) => s.retryAfter).length} of ${unavailable.length}`);
    console.log(`  acknowledged (201) ${acked.length}, missing from the database afterwards: ${lost}`);
    console.log(`  write latency max ${(max / 1000).toFixed(2)} s; over 5 s: ${over(5000)}; over 10 s: ${over(10_000)}`);
    console.log(`  /readyz probes ${probes.length}: statuses ${JSON.stringify(probes.reduce((a: Record<string, number>, p) => ((a[p.status] = (a[p.status] ?? 0) + 1), a), {}))}, max ${(Math.max(...probes.map((p) => p.ms)) / 1000).toFixed(2)} s`);
    console.log(`  first successful write finished ${firstOk ? ((firstOk.at + firstOk.ms - back) / 1000).toFixed(2) + ' s' : 'never'} after the database was back`);
  }

  const productIds = async () => {
    const o = await initAppOrm(db.url, { debug: false });
    const rows = await (o.em as EntityManager).getConnection().execute('select id from products');
    await o.close();
    return new Set<string>(rows.map((r: any) => r.id));
  };

  // 1. PostgreSQL stopped for STOP_S seconds.
  const stopped = await scenario(STOP_S + 8, async () => {
    await sleep(3000);
    await db.stop();
    await sleep(STOP_S * 1000);
    db = await startEmbeddedPostgres(dir, port, true);
    return Date.now();
  });
  report(`PostgreSQL stopped for ${STOP_S} s under ${RATE} writes/s`, stopped, await productIds());

  // 2. PostgreSQL frozen (SIGSTOP) for FREEZE_S seconds.
  const pid = db.pid;
  const frozen = await scenario(8, async () => {
    await sleep(3000);
    const pids = [pid, ...descendants(pid)];
    for (const p of pids) process.kill(p, 'SIGSTOP');
    await sleep(FREEZE_S * 1000);
    for (const p of [pid, ...descendants(pid)]) process.kill(p, 'SIGCONT');
    return Date.now();
  });
  report(`PostgreSQL frozen (SIGSTOP) for ${FREEZE_S} s under ${RATE} writes/s`, frozen, await productIds());

  await service.kill('SIGKILL');
  await db.stop();
  fs.rmSync(base, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
