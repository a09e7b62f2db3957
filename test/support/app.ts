import 'reflect-metadata';
import request from 'supertest';
import type { Express } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { parseConfig, type Config } from '../../src/config';
import { initAppOrm } from '../../mikro-orm.config';
import { databaseOptions } from '../../src/db/pool';
import { buildApp } from '../../src/app';
import { createTestDatabase } from './database';
import { assertMatchesOpenApi } from './openapi';
import { engineUnderTest } from './search-engine';
import { randomBytes } from 'node:crypto';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';

export interface TestApp {
  app: Express;
  orm: MikroORM;
  config: Config;
  /** A fresh EntityManager for set-up and assertions. */
  em(): EntityManager;
  /** SQL statements run since the last `resetStatements()`. */
  statements: string[];
  resetStatements(): void;
  /**
   * With LEADNET_TEST_LISTS_ON_ENGINE=1: brings the engine's indexes up to date with what the test wrote
   * straight to the database (factories), before each request `api` and `gql` send. A no-op otherwise.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

// With them the organisation's share (src/http/fair-share.ts): race tests fire dozens of one brand's requests at once.
const NO_RATE_LIMITS = { RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0', ORGANISATION_CONCURRENCY: '0' };

/** Boots the whole app in-process on a fresh database cloned from the migrated template. */
export async function createTestApp(env: Record<string, string> = {}, overrides: Parameters<typeof buildApp>[2] = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  // Any suite's lists on the live engine (docs/search-engines.md, "Contract suites on the engine").
  const engine = process.env.LEADNET_TEST_LISTS_ON_ENGINE === '1' && !env.SEARCH_BACKEND ? engineUnderTest() : undefined;
  if (engine) {
    env = { SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url, ELASTICSEARCH_INDEX_PREFIX: `leadnet_suite_${randomBytes(4).toString('hex')}_`,
      // `settle` drains the outbox before each request: no background batches mixing into `statements`.
      SEARCH_INDEXER: 'false', ...env };
  }
  // The background workers' statements (webhooks; notifications and first-response timers, both behind
  // NOTIFICATION_WORKER) would mix into `statements`; tests that want one drive it themselves.
  // Suites send many requests from one address in a few seconds; rate-limit tests pass their own limits.
  // The production waits (src/db/pool.ts) with bounds a busy shared test machine meets; the outage tests
  // (test/ops/database-outage.test.ts) set their own short ones.
  const config = parseConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    ...NO_RATE_LIMITS,
    WEBHOOK_WORKER: 'false',
    NOTIFICATION_WORKER: 'false',
    // The store locator's held copies are read in the background, and their statements would mix into
    // `statements` too; test/store-locator/nearest.test.ts turns them on.
    STORE_LOCATOR_HELD_COMPANIES: '0',
    // Kept callers would hide a key revoked by a test's own SQL until the notification arrives, and the
    // key's statement from `statements`; test/http/api-key-cache.test.ts turns the cache on.
    API_KEY_CACHE_TTL_MS: '0',
    // Locator demand's flushes and retention job run in the background too; test/locator-demand turns it on.
    LOCATOR_DEMAND: 'false',
    DB_ACQUIRE_TIMEOUT_MS: '30000',
    DB_STATEMENT_TIMEOUT_MS: '60000',
    ...env,
  });
  const statements: string[] = [];
  const orm = await initAppOrm(db.url, {
    ...databaseOptions(config.database),
    debug: ['query'],
    logger: (message: string) => {
      if (message.startsWith('[query]')) statements.push(message);
    },
    colors: false,
  });
  const { app, stop, search } = await buildApp(config, orm, overrides);
  const es = engine ? (search as ElasticsearchSearchBackend) : undefined;
  return {
    app,
    settle: async () => {
      if (!es) return;
      // The harness's own statements stay out of what a test counts.
      const counted = statements.length;
      await es.indexer.drain();
      await es.refresh();
      statements.splice(counted);
    },
    orm,
    config,
    em: () => orm.em.fork() as EntityManager,
    statements,
    resetStatements: () => void statements.splice(0),
    async close() {
      if (es) await es.client.indices.delete({ index: `${config.elasticsearchIndexPrefix}*`, ignore_unavailable: true }).catch(() => undefined);
      await stop();
      await orm.close();
      await db.drop();
    },
  };
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/**
 * A REST call as a partner makes it. Every response is checked against the OpenAPI document, so the
 * document and the service cannot drift.
 */
export async function api(
  t: TestApp,
  method: Method,
  path: string,
  options: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  await t.settle?.();
  let r = request(t.app)[method](path).set('Accept', 'application/json');
  if (options.key) r = r.set('X-Api-Key', options.key);
  for (const [k, v] of Object.entries(options.headers ?? {})) r = r.set(k, v);
  if (options.raw !== undefined) r = r.set('Content-Type', 'application/json').send(options.raw);
  else if (options.body !== undefined) r = r.send(options.body as object);
  const res = await r;
  assertMatchesOpenApi(method, path, res.status, res.body);
  return res;
}

/** A GraphQL call. */
export async function gql(t: TestApp, key: string | null, query: string, variables: Record<string, unknown> = {}) {
  await t.settle?.();
  let r = request(t.app).post('/graphql').set('Content-Type', 'application/json');
  if (key) r = r.set('X-Api-Key', key);
  return r.send({ query, variables });
}
