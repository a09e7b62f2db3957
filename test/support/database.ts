import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from './global-setup';

/**
 * A fresh, migrated database for one test file, cloned from the run's template; with `empty`, a database
 * without any table (for a process that migrates it, as a first deployment does).
 */
export async function createTestDatabase({ empty = false } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.LEADNET_TEST_SERVER_URL!;
  const template = process.env.LEADNET_TEST_TEMPLATE!;
  const name = `${template}_t_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(server, 'postgres') });
  await admin.connect();
  await admin.query(empty ? `create database ${name}` : `create database ${name} template ${template}`);
  await admin.end();
  return {
    url: withDatabase(server, name),
    async drop() {
      const c = new Client({ connectionString: withDatabase(server, 'postgres') });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
