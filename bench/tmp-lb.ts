/**
 * `POST /v1/leads/batch` throughput (`npm run bench:leads-batch`), docs/partners.md "How fast". Not a
 * test. In-process HTTP (supertest: the REST facade, GraphQL, PostgreSQL), one company admin:
 *
 * - BENCH_BATCHES batches of BENCH_SIZE new quote requests (an email, a phone number and a quote request
 *   each), one at a time after two warm-ups, without and with an `Idempotency-Key`;
 * - up to 5 batches whose every item is a duplicate of a stored lead (each item merges);
 * - BENCH_SINGLES single `POST /v1/leads` of the same leads, for comparison.
 *
 * Prints the median and best batch times and leads per second, and the load average before each part
 * (the machine's other work counts in every figure).
 *
 * BENCH_DATABASE_URL: a PostgreSQL server to create a scratch database on (default the local one at
 * 127.0.0.1:5432, user postgres); BENCH_BATCHES (default 10), BENCH_SIZE (500), BENCH_SINGLES (200).
 */
import 'reflect-metadata';
import os from 'node:os';
import request from 'supertest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseConfig } from '../src/config';
import { initAppOrm } from '../mikro-orm.config';
import { buildApp } from '../src/app';
import { Role } from '../src/modules/user/role';
import * as f from '../test/support/factories';
import { runBench, withScratchDatabase } from './scratch-database';

const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const SIZE = Number(process.env.BENCH_SIZE ?? 500);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 200);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');

let serial = 0;
/** A quote request with an email and a phone number no other lead of the run has. */
function lead() {
  const n = ++serial;
  return {
    name: `Bench shopper ${n}`,
    emails: [{ email: `bench.${n}.${process.pid}@example.com` }],
    phone_numbers: [{ phone_number: `+1 503 ${200 + Math.floor(n / 10_000)} ${String(n % 10_000).padStart(4, '0')}`, country_code: 'US' }],
    lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ name: 'Anvil 100', sku: 'ANV-100', quantity: 1 }] } }],
  };
}

async function main(): Promise<void> {
  await withScratchDatabase(`leadnet_bench_batch_${process.pid}`, async (url) => {
    const config = parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'false', NOTIFICATION_WORKER: 'false', RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', ORGANISATION_CONCURRENCY: '0' });
    const orm = await initAppOrm(url, { debug: true });
    const em = orm.em.fork() as EntityManager;
    const company = await f.company(em, 'Batch bench brand');
    const { key } = await f.userWithKey(em, Role.CompanyAdmin, company);
    const app = await buildApp(config, orm);
    try {
      const batch = async (leads: unknown[], idempotencyKey?: string) => {
        const started = process.hrtime.bigint();
        let r = request(app.app).post('/v1/leads/batch').set('X-Api-Key', key);
        if (idempotencyKey) r = r.set('Idempotency-Key', idempotencyKey);
        const res = await r.send({ leads });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.status !== 200 || res.body.results.some((x: { status: number }) => x.status !== 201)) {
          throw new Error(`batch: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
        }
        return { ms, leads: leads as ReturnType<typeof lead>[] };
      };
      const fresh = () => Array.from({ length: SIZE }, lead);
      const report = (label: string, times: number[]) => {
        const best = Math.min(...times);
        console.log(
          `| ${label} | ${times.length} | ${median(times).toFixed(0)} | ${best.toFixed(0)} | ${((SIZE * 1000) / median(times)).toFixed(0)} | ${((SIZE * 1000) / best).toFixed(0)} |`,
        );
      };
      console.log(`POST /v1/leads/batch, ${SIZE} items a batch; ${os.cpus().length} CPUs`);
      console.log('| Case | batches | median ms | best ms | leads/s (median) | leads/s (best) |');
      console.log('|---|---|---|---|---|---|');
      for (let i = 0; i < 2; i++) await batch(fresh()); // warm-up: compiled documents, prepared statements

      console.error(`load average before new leads: ${load()}`);
      const plain: number[] = [];
      const stored: ReturnType<typeof lead>[][] = [];
      for (let i = 0; i < BATCHES; i++) {
        const { ms, leads } = await batch(fresh());
        plain.push(ms);
        stored.push(leads);
      }
      report('new leads', plain);

      console.error(`load average before Idempotency-Key: ${load()}`);
      const keyed: number[] = [];
      for (let i = 0; i < BATCHES; i++) keyed.push((await batch(fresh(), `bench-${process.pid}-${i}`)).ms);
      report('new leads, Idempotency-Key', keyed);

      console.error(`load average before duplicates: ${load()}`);
      // A stored batch's people again, each with a new email: every item merges into its stored lead.
      const merged: number[] = [];
      for (const people of stored.slice(0, 5)) {
        merged.push((await batch(people.map((l, i) => ({ ...l, emails: [{ email: `again.${merged.length}.${i}.${process.pid}@example.com` }] })))).ms);
      }
      report('every item a duplicate (merges)', merged);

      console.error(`load average before single creates: ${load()}`);
      const started = process.hrtime.bigint();
      for (let i = 0; i < SINGLES; i++) {
        const res = await request(app.app).post('/v1/leads').set('X-Api-Key', key).send({ lead: lead() });
        if (res.status !== 201) throw new Error(`POST /v1/leads: ${res.status} ${JSON.stringify(res.body)}`);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(`\nSingle POST /v1/leads, one at a time: ${SINGLES} in ${seconds.toFixed(1)} s, ${(SINGLES / seconds).toFixed(0)} leads/s`);
    } finally {
      await app.stop();
      await orm.close();
    }
  });
}

runBench(main);
