import 'reflect-metadata';
import request from 'supertest';
import type { Express } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { parseConfig, type Config } from '../../src/config';
import { initOrm } from '../../src/db/orm';
import { databaseOptions } from '../../src/db/pool';
import { buildApp } from '../../src/app';
import { createTestDatabase } from './database';
import { assertMatchesOpenApi } from './openapi';

export interface TestApp {
  app: Express;
  orm: MikroORM;
  config: Config;
  /** A fresh EntityManager for set-up and assertions. */
  em(): EntityManager;
  /** SQL statements run since the last `resetStatements()`. */
  statements: string[];
  resetStatements(): void;
  close(): Promise<void>;
}

const NO_RATE_LIMITS = { RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0', RATE_LIMIT_STORE_LOCATOR: '0' };

/** Boots the whole app in-process on a fresh database cloned from the migrated template. */
export async function createTestApp(env: Record<string, string> = {}, overrides: Parameters<typeof buildApp>[2] = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  // The webhook worker's statements would mix into `statements`; tests that want it drive it themselves.
  // Suites send many requests from one address in a few seconds; rate-limit tests pass their own limits.
  // The production waits (src/db/pool.ts) with bounds a busy shared test machine meets; the outage tests
  // (test/ops/database-outage.test.ts) set their own short ones.
  const config = parseConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    ...NO_RATE_LIMITS,
    WEBHOOK_WORKER: 'false',
    DB_ACQUIRE_TIMEOUT_MS: '30000',
    DB_STATEMENT_TIMEOUT_MS: '60000',
    ...env,
  });
  const statements: string[] = [];
  const orm = await initOrm(db.url, {
    ...databaseOptions(config.database),
    debug: ['query'],
    logger: (message: string) => {
      if (message.startsWith('[query]')) statements.push(message);
    },
    colors: false,
  });
  const { app, stop } = await buildApp(config, orm, overrides);
  return {
    app,
    orm,
    config,
    em: () => orm.em.fork() as EntityManager,
    statements,
    resetStatements: () => void statements.splice(0),
    async close() {
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
  let r = request(t.app).post('/graphql').set('Content-Type', 'application/json');
  if (key) r = r.set('X-Api-Key', key);
  return r.send({ query, variables });
}
