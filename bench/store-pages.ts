/**
 * Store pages benchmark (`npm run bench:store-pages`, docs/store-pages.md, docs/benchmarks.md). Not a test:
 * on the store locator bench's 100,000 stores (bench/store-locator.ts's seed), with the app in a child
 * process (client and server do not share an event loop), it measures over HTTP:
 *
 * - a cached store page (the same pages asked again: the in-process page cache answers);
 * - a store page rendered on first request (each store asked once);
 * - the company directory's pages (cached after the first);
 * - the whole sitemap: the index and every file it lists (100,000 URLs), one after the other.
 *
 * Environment: BENCH_STORES (100000), BENCH_REQUESTS (2000), BENCH_CONCURRENCY (8), DATABASE_URL (else an
 * embedded PostgreSQL kept under BENCH_DIR, default <tmp>/leadnet-bench-store-pages), BENCH_RESEED=1.
 */
import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { Pool } from 'pg';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
// The store locator bench's seed and database (imported: its main does not run).
import { database, seed } from './store-locator';

process.env.BENCH_DIR ??= path.join(os.tmpdir(), 'leadnet-bench-store-pages');
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

interface Stats {
  p50: number;
  p99: number;
  throughput: number;
  n: number;
}

async function measure(count: number, task: (i: number) => Promise<void>, concurrency = CONCURRENCY): Promise<Stats> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), throughput: count / seconds, n: count };
}

async function fetchOk(url: string): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return text;
}

/** Reads a sitemap file as it arrives and counts its `<url>` elements (never the whole text at once). */
async function countUrls(url: string): Promise<number> {
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status}`);
  const decoder = new TextDecoder();
  let count = 0;
  let carry = '';
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    const text = carry + decoder.decode(bytes, { stream: true });
    const last = text.lastIndexOf('<');
    count += (text.slice(0, last).match(/<url>/g) ?? []).length;
    carry = text.slice(last);
  }
  return count + (carry.match(/<url>/g) ?? []).length;
}

async function main() {
  const db = await database();
  const orm = await initAppOrm(db.url, { debug: false });
  const pool = new Pool({ connectionString: db.url, max: 4 });
  let server: ReturnType<typeof fork> | undefined;
  try {
    const companyId = await seed(pool);
    const { rows: [company] } = await pool.query(`select slug from company_page_slugs where company_id = $1 and current`, [companyId]);
    const { rows: pages } = await pool.query(
      `select city_slug, store_slug from store_pages where company_id = $1 and listed order by md5(crl_id::text) limit $2`,
      [companyId, REQUESTS + 200],
    );
    console.log(`${pages.length} store pages sampled; company slug ${company.slug}`);
    server = fork(__filename, ['--serve'], { execArgv: ['--import', 'tsx'], env: { ...process.env, BENCH_SERVE_URL: db.url } });
    const port = await new Promise<number>((resolve, reject) => {
      server!.once('message', (m: any) => resolve(m.port));
      server!.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const pageUrl = (i: number) => `${base}/stores/${company.slug}/${pages[i].city_slug}/${pages[i].store_slug}`;

    const rows: Array<[string, Stats]> = [];
    // Each store once: rendered from the database (and kept).
    rows.push(['store page, first request (rendered)', await measure(REQUESTS, (i) => fetchOk(pageUrl(i)).then(() => undefined))]);
    // The same stores again: from the page cache.
    rows.push(['store page, cached', await measure(REQUESTS, (i) => fetchOk(pageUrl(i % 200)).then(() => undefined))]);
    rows.push(['store page, cached, one at a time', await measure(REQUESTS, (i) => fetchOk(pageUrl(i % 200)).then(() => undefined), 1)]);
    rows.push(['directory page (1 to 50), first then cached', await measure(REQUESTS, (i) => fetchOk(`${base}/stores/${company.slug}?page=${(i % 50) + 1}`).then(() => undefined))]);

    const sitemaps: number[] = [];
    let urls = 0;
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      const index = await fetchOk(`${base}/sitemap.xml`);
      urls = 0;
      for (const m of index.matchAll(/<loc>([^<]+)<\/loc>/g)) urls += await countUrls(m[1].replace(/^https?:\/\/[^/]+/, base));
      sitemaps.push(performance.now() - t0);
    }
    sitemaps.sort((a, b) => a - b);

    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    console.log(`\n${line(['Request', 'n', 'p50 ms', 'p99 ms', 'req/s'])}\n${line(['---', '---:', '---:', '---:', '---:'])}`);
    for (const [name, s] of rows) console.log(line([name, String(s.n), s.p50.toFixed(1), s.p99.toFixed(1), s.throughput.toFixed(0)]));
    console.log(`\nwhole sitemap (index + files, ${urls.toLocaleString('en-US')} URLs), 5 runs: median ${sitemaps[2].toFixed(0)} ms, min ${sitemaps[0].toFixed(0)} ms, max ${sitemaps[4].toFixed(0)} ms`);
    console.log(`load average: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    server?.kill();
    await pool.end();
    await orm.close();
    await db.stop();
  }
}

async function serve(url: string) {
  const orm = await initAppOrm(url, { debug: false });
  const { app } = await buildApp(parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_STORE_LOCATOR: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_API: '0' }), orm);
  const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
}

(process.argv.includes('--serve') ? serve(process.env.BENCH_SERVE_URL!) : main()).then(
  () => {
    if (!process.argv.includes('--serve')) process.exit(0);
  },
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
