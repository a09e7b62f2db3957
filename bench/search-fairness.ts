/**
 * One company's backlog against another's import on a search engine (`npm run bench:search-fairness`),
 * docs/search-engines.md "The background indexer shares its batches". Not a test. Starts the service
 * (`src/main.ts`, its background indexer on) on a scratch database and the engine at SEARCH_URL, runs
 * `leadnet import products` of BENCH_ROWS (200,000) products for one company, then at once an import of 10
 * products for another, and times from the end of each import until the engine lists all of its products,
 * with how many of the first import's changes were still queued when the second's were listed. Then, as an
 * engine outage leaves the outbox, BENCH_WRITES (20,000) products are written with the service stopped, each
 * in its own transaction, and the service started again is timed until the engine lists them all.
 *
 *   SEARCH_BACKEND=opensearch SEARCH_URL=http://127.0.0.1:9200 BENCH_ROWS=1000000 npm run bench:search-fairness
 *
 * BENCH_ROWS=0 or BENCH_WRITES=0 skips that part.
 *
 * BENCH_DATABASE_URL: a PostgreSQL server to create the scratch database on (default the local one at
 * 127.0.0.1:5432, user postgres).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { parseConfig } from '../src/config';
import { searchEngineClient } from '../src/search/factory';
import { startService } from '../test/support/service-process';
import { runBench, withScratchDatabase } from './scratch-database';

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 20_000);
const BACKEND = process.env.SEARCH_BACKEND === 'elasticsearch' ? 'elasticsearch' : 'opensearch';
const URL_ = process.env.SEARCH_URL ?? process.env.ELASTICSEARCH_URL;
const BIN = path.join(__dirname, '..', 'bin', 'leadnet.js');
const run = promisify(execFile);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function productsCsv(tag: string, rows: number): string {
  const file = path.join(os.tmpdir(), `leadnet-bench-fairness-${process.pid}-${tag}.csv`);
  const lines = ['sku,name,category'];
  for (let i = 0; i < rows; i++) lines.push(`${tag}-${i},Product ${i},Category ${i % 40}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function main(): Promise<void> {
  if (!URL_) throw new Error('SEARCH_URL must name the engine to measure');
  const engine = URL_;
  await withScratchDatabase(`leadnet_bench_fairness_${process.pid}`, (url) => measure(url, engine));
}

async function measure(url: string, engine: string): Promise<void> {
  const prefix = `leadnet_bench_${randomBytes(3).toString('hex')}_`;
  const env = { DATABASE_URL: url, SEARCH_BACKEND: BACKEND, SEARCH_URL: engine, ELASTICSEARCH_INDEX_PREFIX: prefix, LOG_LEVEL: 'silent' };
  const client = searchEngineClient(parseConfig(env));
  const start = async () => {
    const service = await startService({ ...env, LOG_LEVEL: 'info', WEBHOOK_WORKER: 'false' });
    await service.waitFor((l) => /listening/.test(l.msg ?? ''), 120_000);
    return service;
  };
  let service = await start();
  const db = new Client({ connectionString: url });
  try {
    await db.connect();
    const { rows: [a, b, c] } = await db.query(`insert into companies (name) values ('Backlog'), ('Importer'), ('Writer') returning id`);
    const listed = async (company: string) => {
      const r = await fetch(`${engine}/${prefix}products/_count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { term: { company_id: company } } }),
      });
      return ((await r.json()) as { count?: number }).count ?? 0;
    };
    if (ROWS > 0) await importBehindBacklog(env, listed, db, a.id, b.id);
    if (WRITES > 0) {
      console.log(`${BACKEND}: ${WRITES.toLocaleString('en')} products written in as many transactions while the service is stopped`);
      await service.kill();
      const written = Array.from({ length: 4 }, async (_, w) => {
        const writer = new Client({ connectionString: url });
        await writer.connect();
        for (let i = w; i < WRITES; i += 4) await writer.query(`insert into products (company_id, sku, name) values ($1, $2, $3)`, [c.id, `W-${i}`, `Product ${i}`]);
        await writer.end();
      });
      await Promise.all(written);
      const started = performance.now();
      service = await start();
      while ((await listed(c.id)) < WRITES) await new Promise((r) => setTimeout(r, 100));
      console.log(`all listed ${seconds(performance.now() - started)} after the service started`);
    }
  } finally {
    await service.kill();
    await db.end().catch(() => undefined);
    await client.indices.delete({ index: `${prefix}*`, ignore_unavailable: true }).catch(() => undefined);
  }
}

/** One company's import of ROWS products, then at once another's of 10: when each is listed. */
async function importBehindBacklog(
  env: Record<string, string>,
  listed: (company: string) => Promise<number>,
  db: Client,
  a: string,
  b: string,
): Promise<void> {
  const big = productsCsv('BIG', ROWS);
  const small = productsCsv('SMALL', 10);
  const importFor = async (company: string, file: string) => {
    await run(process.execPath, [BIN, 'import', 'products', file, '--company', company], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
    return performance.now();
  };

  console.log(`${BACKEND}: \`leadnet import products\` of ${ROWS.toLocaleString('en')} products for one company, then of 10 for another`);
  const started = performance.now();
  const bigDone = await importFor(a, big);
  const smallDone = await importFor(b, small);
  console.log(`imports: ${seconds(bigDone - started)} and ${seconds(smallDone - bigDone)}`);
  let smallListed = 0;
  let bigListed = 0;
  let queuedThen = 0;
  while (!smallListed || !bigListed) {
    if (!smallListed && (await listed(b)) === 10) {
      smallListed = performance.now();
      queuedThen = Number((await db.query('select count(*) from search_outbox')).rows[0].count);
    }
    if (!bigListed && (await listed(a)) === ROWS) bigListed = performance.now();
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`the 10 products listed ${seconds(smallListed - smallDone)} after their import, with ${queuedThen.toLocaleString('en')} changes still queued`);
  console.log(`the ${ROWS.toLocaleString('en')} products listed ${seconds(bigListed - bigDone)} after their import`);
}

runBench(main);
