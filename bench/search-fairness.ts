/**
 * One company's backlog against another's import on a search engine (`npm run bench:search-fairness`),
 * docs/search-engines.md "The background indexer shares its batches". Not a test. Starts the service
 * (`src/main.ts`, its background indexer on) on a scratch database and the engine at SEARCH_URL, runs
 * `leadnet import products` of BENCH_ROWS (200,000) products for one company, then at once an import of 10
 * products for another, and times from the end of each import until the engine lists all of its products,
 * with how many of the first import's changes were still queued when the second's were listed.
 *
 *   SEARCH_BACKEND=opensearch SEARCH_URL=http://127.0.0.1:9200 BENCH_ROWS=1000000 npm run bench:search-fairness
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
  const service = await startService({ ...env, LOG_LEVEL: 'info', WEBHOOK_WORKER: 'false' });
  const db = new Client({ connectionString: url });
  try {
    await service.waitFor((l) => /listening/.test(l.msg ?? ''), 120_000);
    await db.connect();
    const { rows: [a, b] } = await db.query(`insert into companies (name) values ('Backlog'), ('Importer') returning id`);
    const big = productsCsv('BIG', ROWS);
    const small = productsCsv('SMALL', 10);
    const listed = async (company: string) => {
      const r = await fetch(`${engine}/${prefix}products/_count`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: { term: { company_id: company } } }),
      });
      return ((await r.json()) as { count?: number }).count ?? 0;
    };
    const importFor = async (company: string, file: string) => {
      await run(process.execPath, [BIN, 'import', 'products', file, '--company', company], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
      return performance.now();
    };

    console.log(`${BACKEND}: \`leadnet import products\` of ${ROWS.toLocaleString('en')} products for one company, then of 10 for another`);
    const started = performance.now();
    const bigDone = await importFor(a.id, big);
    const smallDone = await importFor(b.id, small);
    console.log(`imports: ${seconds(bigDone - started)} and ${seconds(smallDone - bigDone)}`);
    let smallListed = 0;
    let bigListed = 0;
    let queuedThen = 0;
    while (!smallListed || !bigListed) {
      if (!smallListed && (await listed(b.id)) === 10) {
        smallListed = performance.now();
        queuedThen = Number((await db.query('select count(*) from search_outbox')).rows[0].count);
      }
      if (!bigListed && (await listed(a.id)) === ROWS) bigListed = performance.now();
      await new Promise((r) => setTimeout(r, 100));
    }
    console.log(`the 10 products listed ${seconds(smallListed - smallDone)} after their import, with ${queuedThen.toLocaleString('en')} changes still queued`);
    console.log(`the ${ROWS.toLocaleString('en')} products listed ${seconds(bigListed - bigDone)} after their import`);
  } finally {
    await service.kill();
    await db.end().catch(() => undefined);
    await client.indices.delete({ index: `${prefix}*`, ignore_unavailable: true }).catch(() => undefined);
  }
}

runBench(main);
