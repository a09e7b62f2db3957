// Dev helper: diff the entities against a scratch embedded database and print the SQL of a migration.
import 'reflect-metadata';
import path from 'node:path';
import os from 'node:os';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../mikro-orm.config';
import { startEmbeddedPostgres } from '../src/db/embedded';

async function main() {
  // One level below the temp dir (a directory the postgres user can reach when run as root).
  const db = await startEmbeddedPostgres(path.join(os.tmpdir(), `leadnet-gen-${process.pid}`, 'pg'), 54400 + (process.pid % 500), false);
  const orm = await MikroORM.init(ormConfig(db.url));
  try {
    await orm.getMigrator().up();
    const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
    console.log(sql);
  } finally {
    await orm.close();
    await db.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
