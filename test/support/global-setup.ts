import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { Client } from 'pg';
import { execFileSync } from 'node:child_process';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { clusterEngine, startSearchCluster } from './search-cluster';

/**
 * Starts one PostgreSQL for the run (embedded, from `LEADNET_TEST_PG_NATIVE`'s binaries when set, or
 * `TEST_DATABASE_URL`), migrates a template database,
 * and lets each test file clone it (`test/support/database.ts`). With `SEARCH_CLUSTER` also one of the
 * project's search clusters, for the engine suites (test/support/search-engine.ts).
 */
export default async function globalSetup(): Promise<void> {
  const engine = clusterEngine();
  if (engine) {
    const cluster = await startSearchCluster(engine);
    (globalThis as any).__leadnetSearchCluster = cluster;
    process.env.LEADNET_TEST_SEARCH_URL = cluster.url;
    process.env.LEADNET_TEST_SEARCH_BACKEND = engine;
    console.log(`\n${engine} cluster green at ${cluster.url} after ${cluster.startSeconds.toFixed(1)} s`);
  }
  let serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-test-'));
    // Below Linux's ephemeral range, where outgoing connections take their local ports (see pgPort).
    const port = 26000 + Math.floor(Math.random() * 4000);
    // From a 0700 directory (mkdtemp): as root the cluster goes where the postgres user can reach it.
    // LEADNET_TEST_PG_NATIVE: another PostgreSQL's binaries (a directory with bin/initdb and bin/postgres,
    // e.g. Debian's /usr/lib/postgresql/15), so that its own pg_dump matches the server (.ci/run).
    const db = await startEmbeddedPostgres(path.join(dir, 'pg'), port, {
      persistent: false,
      nativeDir: process.env.LEADNET_TEST_PG_NATIVE || undefined,
      // Throwaway: commits and template clones do not wait for the disk.
      unsynced: true,
    });
    (globalThis as any).__leadnetDb = db;
    (globalThis as any).__leadnetDbDir = dir;
    serverUrl = db.url;
  }
  const template = `leadnet_template_${process.pid}`;
  const admin = new Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  await admin.end();
  // MikroORM is kept out of this process: its global metadata would leak into the test sandboxes.
  execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', '..', 'scripts', 'migrate.ts')], {
    env: { ...process.env, DATABASE_URL: withDatabase(serverUrl, template) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.env.LEADNET_TEST_SERVER_URL = serverUrl;
  process.env.LEADNET_TEST_TEMPLATE = template;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
