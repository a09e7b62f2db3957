/**
 * The cost of read-your-writes on a search engine (`npm run bench:search-writes`), docs/search-engines.md
 * "Read-your-writes". Not a test. Times `POST /v1/leads` (a quote request, in-process HTTP: REST facade,
 * GraphQL, PostgreSQL, the search outbox) on PostgreSQL search, then on the engine at SEARCH_URL with the
 * write not waiting (SEARCH_WRITE_WAIT_MS=0), waiting with `refresh=wait_for` and with `refresh=true`;
 * sequentially, then BENCH_CONCURRENCY at a time. Each engine mode uses indexes of its own, deleted after.
 *
 *   SEARCH_BACKEND=opensearch SEARCH_URL=http://127.0.0.1:9200 npm run bench:search-writes
 *
 * BENCH_DATABASE_URL: a PostgreSQL server to create a scratch database on (default the local one at
 * 127.0.0.1:5432, user postgres); BENCH_WRITES (default 60) per mode and phase; BENCH_CONCURRENCY (4).
 */
import 'reflect-metadata';
process.env.LOG_LEVEL ??= 'silent';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
import { searchEngineClient } from '../src/search/factory';
import { Role } from '../src/modules/user/role';
import * as f from '../test/support/factories';
import { runBench, withScratchDatabase } from './scratch-database';

const WRITES = Number(process.env.BENCH_WRITES ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const BACKEND = process.env.SEARCH_BACKEND === 'elasticsearch' ? 'elasticsearch' : 'opensearch';
const URL_ = process.env.SEARCH_URL ?? process.env.ELASTICSEARCH_URL;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function main(): Promise<void> {
  if (!URL_) throw new Error('SEARCH_URL must name the engine to measure');
  await withScratchDatabase(`leadnet_bench_writes_${process.pid}`, async (url) => {
    const modes: Array<[string, Record<string, string>]> = [
      ['PostgreSQL search', { SEARCH_BACKEND: 'postgres' }],
      ['engine, no wait', { SEARCH_BACKEND: BACKEND, SEARCH_URL: URL_, SEARCH_WRITE_WAIT_MS: '0' }],
      ['engine, wait_for', { SEARCH_BACKEND: BACKEND, SEARCH_URL: URL_, SEARCH_WRITE_REFRESH: 'wait_for' }],
      ['engine, refresh=true', { SEARCH_BACKEND: BACKEND, SEARCH_URL: URL_, SEARCH_WRITE_REFRESH: 'true' }],
    ];
    console.log(`POST /v1/leads, ${WRITES} sequential then ${WRITES} at ${CONCURRENCY} concurrent, per mode (ms)`);
    console.log('| Mode | sequential p50 | p99 | concurrent p50 | p99 | writes/s concurrent |');
    console.log('|---|---|---|---|---|---|');
    for (const [label, env] of modes) {
      const prefix = `leadnet_bench_${randomBytes(3).toString('hex')}_`;
      const config = parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'false', RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', ELASTICSEARCH_INDEX_PREFIX: prefix, ...env });
      const orm = await initAppOrm(url, { debug: false });
      const em = orm.em.fork() as EntityManager;
      const company = await f.company(em, `Bench ${label}`);
      const { key } = await f.userWithKey(em, Role.CompanyAdmin, company);
      const app = await buildApp(config, orm);
      let n = 0;
      const post = async () => {
        const started = process.hrtime.bigint();
        const i = ++n;
        const res = await request(app.app)
          .post('/v1/leads')
          .set('X-Api-Key', key)
          .send({ lead: { name: `Bench ${i}`, emails: [{ email: `bench${i}.${prefix}@example.com` }], lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ name: 'Anvil', sku: 'ANV-1', quantity: 1 }] } }] } });
        if (res.status !== 201) throw new Error(`POST /v1/leads: ${res.status} ${JSON.stringify(res.body)}`);
        return Number(process.hrtime.bigint() - started) / 1e6;
      };
      for (let i = 0; i < 5; i++) await post(); // warm-up
      const sequential: number[] = [];
      for (let i = 0; i < WRITES; i++) sequential.push(await post());
      const concurrent: number[] = [];
      const started = Date.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (concurrent.length < WRITES) concurrent.push(await post());
      }));
      const rate = (concurrent.length / (Date.now() - started)) * 1000;
      const ms = (x: number) => x.toFixed(1);
      console.log(`| ${label} | ${ms(quantile(sequential, 0.5))} | ${ms(quantile(sequential, 0.99))} | ${ms(quantile(concurrent, 0.5))} | ${ms(quantile(concurrent, 0.99))} | ${rate.toFixed(1)} |`);
      await app.stop();
      if (env.SEARCH_URL) await searchEngineClient(config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
      await orm.close();
    }
  });
}

runBench(main);
