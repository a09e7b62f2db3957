/**
 * Locator demand benchmark (`npm run bench:locator-demand`). Not a test: the store locator's throughput
 * with the searches counted (`LOCATOR_DEMAND=true`, the default) and without (`false`), side by side on the
 * same database (bench/store-locator.ts's seed: 100,000 stores), each app in a child process of its own,
 * measured in alternating rounds so the machine's load falls on both alike. Every search asks from a
 * different point (so the buffer takes new keys, the costly case) and half ask for products. Then the
 * recording alone, in process: the cost of one `DemandBuffer.record`, and of flushing a full day of
 * 100,000 searches' counts.
 *
 * Environment: BENCH_STORES (100000), BENCH_REQUESTS per round (600), BENCH_ROUNDS (3), BENCH_CONCURRENCY (8),
 * DATABASE_URL (else the embedded PostgreSQL of bench/store-locator.ts under BENCH_DIR).
 */
import 'reflect-metadata';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fork, type ChildProcess } from 'node:child_process';
import { Pool } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
import { database, seed } from './store-locator';
import { DemandBuffer } from '../src/modules/locator-demand/locator-demand.buffer';
import { addCounts } from '../src/modules/locator-demand/locator-demand.repository';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

function rng(seedValue: number) {
  let s = seedValue >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function start(url: string, demand: boolean): Promise<{ child: ChildProcess; base: string }> {
  const child = fork(__filename, ['--serve'], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_SERVE_URL: url, BENCH_DEMAND: String(demand) } });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** REQUESTS searches with CONCURRENCY workers: searches per second and p50/p99 ms. */
async function round(urls: string[]): Promise<{ rps: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < urls.length) {
        const url = urls[next++];
        const t0 = performance.now();
        const res = await fetch(url);
        if (res.status !== 200) throw new Error(`HTTP ${res.status} for ${url}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: urls.length / seconds, p50: at(0.5), p99: at(0.99) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const db = await database();
  // Migrates the database (as bench/store-locator.ts does before its seed).
  const orm = await initAppOrm(db.url, { debug: false });
  const pool = new Pool({ connectionString: db.url, max: 4 });
  const servers: ChildProcess[] = [];
  try {
    const companyId = await seed(pool);
    await pool.query('delete from locator_demand where company_id = $1', [companyId]);
    const { rows: products } = await pool.query(`select sku from products where company_id = $1 order by sku limit 50`, [companyId]);
    const on = await start(db.url, true);
    const off = await start(db.url, false);
    servers.push(on.child, off.child);
    const random = rng(11);
    // Points across the seeded area (the US and Canada), a new one for every search.
    const urls = (base: string, r: number) =>
      Array.from({ length: REQUESTS }, (_, i) => {
        const params = new URLSearchParams({
          cc_id: companyId,
          latitude: (30 + random() * 18).toFixed(5),
          longitude: (-120 + random() * 45).toFixed(5),
          radius: '50mi',
          page: '1',
        });
        if ((i + r) % 2) params.append('stocked_product_skus', products[(i * 7) % products.length].sku);
        return `${base}/v1/store_locator?${params}`;
      });
    for (const base of [on.base, off.base]) await round(urls(base, 0).slice(0, 60)); // warm-up
    const results: Record<'on' | 'off', Array<{ rps: number; p50: number; p99: number }>> = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which goes first.
      const order: Array<['on' | 'off', string]> = r % 2 ? [['off', off.base], ['on', on.base]] : [['on', on.base], ['off', off.base]];
      for (const [name, base] of order) results[name].push(await round(urls(base, r)));
    }
    const metrics = await (await fetch(`${on.base}/metrics`)).text();
    const recorded = /leadnet_locator_demand_searches_total\{outcome="recorded"\} (\d+)/.exec(metrics)?.[1] ?? '?';
    const dropped = /leadnet_locator_demand_searches_total\{outcome="dropped"\} (\d+)/.exec(metrics)?.[1] ?? '?';
    console.log(`${REQUESTS} searches per round, ${ROUNDS} rounds, concurrency ${CONCURRENCY}, load average ${os.loadavg()[0].toFixed(1)}`);
    console.log('recording  req/s (median of rounds)  p50 ms  p99 ms');
    for (const name of ['on', 'off'] as const) {
      const rs = results[name];
      console.log(`${name.padEnd(9)}  ${median(rs.map((x) => x.rps)).toFixed(0).padStart(28)}  ${median(rs.map((x) => x.p50)).toFixed(1).padStart(6)}  ${median(rs.map((x) => x.p99)).toFixed(1).padStart(6)}`);
    }
    console.log(`throughput on/off: ${(median(results.on.map((x) => x.rps)) / median(results.off.map((x) => x.rps))).toFixed(3)}; searches recorded ${recorded}, dropped ${dropped}`);

    // The recording alone: 100,000 searches of a day in one company, from 5,000 distinct places, a third asking for a product.
    const config = parseConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
    const buffer = new DemandBuffer({ maxEntries: config.locatorDemand.maxEntries, maxBytes: config.locatorDemand.maxBytes, farMetres: config.locatorDemand.farMetres });
    const places = Array.from({ length: 5000 }, () => ({ latitude: 30 + random() * 18, longitude: -120 + random() * 45 }));
    const at = new Date();
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) {
      buffer.record({ companyId, at, place: places[i % places.length], products: i % 3 ? [] : [`sku:${products[i % products.length].sku}`], total: i % 10, nearestMetres: i % 10 ? 1000 * (i % 80) : null });
    }
    const recordMs = performance.now() - t0;
    const counts = buffer.take();
    const t1 = performance.now();
    await addCounts(orm.em.fork() as EntityManager, counts);
    const flushMs = performance.now() - t1;
    console.log(
      `in process: 100,000 record() calls in ${recordMs.toFixed(0)} ms (${((recordMs * 1000) / 100_000).toFixed(2)} µs each), ${counts.length} keys; ` +
        `their one upsert statement ${flushMs.toFixed(0)} ms`,
    );
    await pool.query('delete from locator_demand where company_id = $1', [companyId]);
  } finally {
    for (const s of servers) s.kill();
    await pool.end();
    await orm.close();
    await db.stop();
  }
}

/** The app alone, recording or not, on a free port of the loopback interface; tells the parent which. */
async function serve(url: string) {
  const orm = await initAppOrm(url, { debug: false });
  const config = parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_STORE_LOCATOR: '0', LOCATOR_DEMAND: process.env.BENCH_DEMAND ?? 'true' });
  const { app } = await buildApp(config, orm);
  const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

(process.argv.includes('--serve') ? serve(process.env.BENCH_SERVE_URL!) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
