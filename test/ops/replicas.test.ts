// Several service processes on one PostgreSQL behave as one service: migrations run once when they
// start together on an empty database, the search outbox indexer runs in exactly one of them, and when
// that one is killed (SIGKILL) another takes over with nothing lost. Real child processes, real HTTP,
// real PostgreSQL; Elasticsearch is the in-memory stand-in behind a real HTTP server.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { withDatabase } from '../support/global-setup';
import { serveFakeElasticsearch } from '../support/fake-elasticsearch-server';
import { startService, type ServiceProcess } from '../support/service-process';
import { initAppOrm } from '../../mikro-orm.config';
import { projectMigrations } from '../../src/db/migration-files';
import { Role } from '../../src/modules/user/role';
import * as f from '../support/factories';

const server = process.env.LEADNET_TEST_SERVER_URL!;
const name = `leadnet_replicas_${randomBytes(5).toString('hex')}`;
const url = withDatabase(server, name);
let es: Awaited<ReturnType<typeof serveFakeElasticsearch>>;
let services: ServiceProcess[] = [];
let orm: MikroORM | undefined;

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: withDatabase(server, 'postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const sql = async (text: string, params: unknown[] = []) => {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
};

const leading = (l: Record<string, any>) => l.worker === 'search-indexer' && /^leading/.test(l.msg ?? '');

beforeAll(async () => {
  await admin((c) => c.query(`create database ${name}`));
  es = await serveFakeElasticsearch();
});

afterAll(async () => {
  for (const s of services) await s.kill('SIGKILL');
  await orm?.close();
  await es?.close();
  await admin((c) => c.query(`drop database if exists ${name} with (force)`));
});

test('two replicas on one database: one migration run, one indexer, takeover after kill -9, nothing lost', async () => {
  const env = {
    DATABASE_URL: url,
    SEARCH_BACKEND: 'elasticsearch',
    ELASTICSEARCH_URL: es.url,
    ELASTICSEARCH_INDEX_PREFIX: 'rep_',
    WORKER_LOCK_RETRY_MS: '300',
  };
  // Started together on an empty database.
  services = await Promise.all([startService(env), startService(env)]);
  const [a, b] = services;
  await Promise.all(services.map((s) => s.waitFor((l) => /listening/.test(l.msg ?? ''), 120_000)));

  const migrations = await sql('select name, count(*)::int as n from mikro_orm_migrations group by name');
  expect(migrations).toHaveLength(projectMigrations().length);
  expect(migrations.every((m) => m.n === 1)).toBe(true);
  for (const s of services) expect(s.lines.filter((l) => l.level >= 50)).toEqual([]);

  // Exactly one of them runs the indexer.
  await Promise.race(services.map((s) => s.waitFor(leading, 30_000)));
  expect(services.filter((s) => s.lines.some(leading))).toHaveLength(1);
  const leader = services.find((s) => s.lines.some(leading))!;
  const standby = leader === a ? b : a;

  orm = await initAppOrm(url, { debug: false });
  const em = orm.em.fork() as EntityManager;
  const company = await f.company(em, 'Replica Co');
  const { key } = await f.userWithKey(em, Role.CompanyAdmin, company);
  const call = async (s: ServiceProcess, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };

  /** What the service acknowledged: product id -> name. */
  const acknowledged = new Map<string, string>();
  const write = async (to: ServiceProcess, readFrom: ServiceProcess, i: number) => {
    const created = await call(to, 'POST', '/v1/products', { product: { sku: `R-${i}`, name: `Replica ${i}` } });
    expect(created.status).toBe(201);
    acknowledged.set(created.body.id, `Replica ${i}`);
    const shown = await call(readFrom, 'GET', `/v1/products/${created.body.id}`);
    expect(shown).toEqual({ status: 200, body: created.body });
    const renamed = await call(readFrom, 'PATCH', `/v1/products/${created.body.id}`, { product: { name: `Replica ${i} renamed` } });
    expect(renamed.status).toBe(200);
    acknowledged.set(created.body.id, `Replica ${i} renamed`);
  };

  // Interleaved writes and reads on both replicas while the leader drains.
  for (let i = 0; i < 12; i++) await write(i % 2 ? a : b, i % 2 ? b : a, i);

  // Taken before the kill: the standby may take over (and log it) before this process hears of the exit.
  const killedAt = Date.now();
  await leader.kill('SIGKILL');
  for (let i = 12; i < 20; i++) await write(standby, standby, i);

  const takeover = await standby.waitFor(leading, 30_000);
  expect(takeover.time).toBeGreaterThanOrEqual(killedAt);

  // The outbox drains on the survivor (bounded wait).
  for (let tries = 0; tries < 150; tries++) {
    const [{ n }] = await sql('select count(*)::int as n from search_outbox');
    if (n === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(await sql('select count(*)::int as n from search_outbox')).toEqual([{ n: 0 }]);

  // Every acknowledged write is in PostgreSQL once, and Elasticsearch holds exactly the current state.
  const rows = await sql('select id, name from products order by sku');
  expect(new Map(rows.map((r) => [r.id, r.name]))).toEqual(acknowledged);
  const [index] = es.fake.aliased('rep_products');
  const docs = es.fake.docs(index);
  expect(new Map([...docs].map(([id, d]) => [id, d.name]))).toEqual(acknowledged);
  // The standby never led before the leader died.
  expect(standby.lines.filter(leading)).toEqual([takeover]);
}, 240_000); // two service starts on an empty database (each runs up to 120 s under load)
