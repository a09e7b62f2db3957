import fs from 'node:fs';
import { Client } from 'pg';
import { withDatabase } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as any).__leadnetSearchCluster?.stop();
  const db = (globalThis as any).__leadnetDb;
  if (db) {
    await db.stop();
    fs.rmSync((globalThis as any).__leadnetDbDir, { recursive: true, force: true });
    return;
  }
  const url = process.env.LEADNET_TEST_SERVER_URL;
  if (!url) return;
  const admin = new Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  const { rows } = await admin.query(
    `select datname from pg_database where datname like $1 || '\\_t\\_%' or datname = $1`,
    [process.env.LEADNET_TEST_TEMPLATE],
  );
  for (const r of rows) await admin.query(`drop database if exists "${r.datname}" with (force)`);
  await admin.end();
}
