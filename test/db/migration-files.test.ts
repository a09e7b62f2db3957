import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config';
import { discoverMigrations, MIGRATIONS_DIR, projectMigrations } from '../../src/db/migration-files';
import { withDatabase } from '../support/global-setup';

/**
 * Migrations are the files of migrations/ (src/db/migration-files.ts): a file dropped in the folder is
 * applied, in timestamp order, and a file that is not a migration stops the start with its name.
 */
const MIGRATION = require.resolve('@mikro-orm/migrations');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-migrations-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A migration file creating `table`, as a person writes one. */
function write(file: string, className = path.basename(file, '.ts'), table = `t_${randomBytes(3).toString('hex')}`): void {
  fs.writeFileSync(
    path.join(dir, file),
    `import { Migration } from ${JSON.stringify(MIGRATION)};\n` +
      `export class ${className} extends Migration {\n` +
      `  async up(): Promise<void> { this.addSql('create table ${table} (id int primary key)'); }\n` +
      `}\n`,
  );
}

test('every file of migrations/ is a migration the ORM runs, oldest first, under its file name', () => {
  const files = fs.readdirSync(MIGRATIONS_DIR).map((f) => path.basename(f, '.ts')).sort();
  expect(files.length).toBeGreaterThan(20);
  expect(projectMigrations().map((m) => m.name)).toEqual(files);
  for (const m of projectMigrations()) expect(m.class.name).toBe(m.name);
  const config = ormConfig('postgres://unused/none');
  expect(config.migrations?.migrationsList?.map((m) => m.name)).toEqual(files);
});

test('a file dropped in the folder is discovered and applied, sorted by its timestamp', async () => {
  write('Migration20261127100100_second.ts', undefined, 'second_table');
  write('Migration20261127100000_first.ts', undefined, 'first_table');
  fs.writeFileSync(path.join(dir, 'Migration20261127100000_first.js.map'), '{}'); // a build's source map
  fs.writeFileSync(path.join(dir, '.DS_Store'), '');
  const found = discoverMigrations(dir, '.ts');
  expect(found.map((m) => m.name)).toEqual(['Migration20261127100000_first', 'Migration20261127100100_second']);

  // Applied by MikroORM's migrator on an empty database, as `leadnet migrate` applies the project's.
  const server = process.env.LEADNET_TEST_SERVER_URL!;
  const name = `leadnet_migfiles_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(server, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    const base = ormConfig(withDatabase(server, name));
    const orm = await MikroORM.init({ ...base, logger: () => undefined, migrations: { ...base.migrations, migrationsList: found } });
    try {
      expect((await orm.getMigrator().up()).map((m) => m.name)).toEqual(found.map((m) => m.name));
      const rows = await orm.em.getConnection().execute(`select name from mikro_orm_migrations order by id`);
      expect(rows.map((r) => r.name)).toEqual(found.map((m) => m.name));
      const tables = await orm.em.getConnection().execute(`select to_regclass('first_table') as a, to_regclass('second_table') as b`);
      expect(tables).toEqual([{ a: 'first_table', b: 'second_table' }]);
    } finally {
      await orm.close();
    }
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});

test.each([
  ['widgets.ts'],
  ['Migration2026112710_widgets.ts'],
  ['migration20261127100000_widgets.ts'],
  ['Migration20261127100000-widgets.ts'],
  ['Migration20261127100000_widgets.js'],
  ['Migration20261127100000_widgets.sql'],
  ['README.md'],
])('a file named %s is refused, naming the file and the expected name', (file) => {
  write('Migration20261127100000_fine.ts');
  fs.writeFileSync(path.join(dir, file), 'export {};\n');
  expect(() => discoverMigrations(dir, '.ts')).toThrow(
    `${path.join(path.relative(process.cwd(), dir), file)}: the migrations folder holds migrations only, each named Migration<yyyymmddhhmmss>_<name>.ts`,
  );
});

test('a folder inside migrations/ is refused', () => {
  fs.mkdirSync(path.join(dir, 'Migration20261127100000_widgets.ts'));
  expect(() => discoverMigrations(dir, '.ts')).toThrow(/Migration20261127100000_widgets\.ts: the migrations folder holds migrations only/);
});

test('a file whose class is not named as the file is refused', () => {
  write('Migration20261127100000_widgets.ts', 'Migration20261127100000_gadgets');
  expect(() => discoverMigrations(dir, '.ts')).toThrow(
    /Migration20261127100000_widgets\.ts must export the migration class Migration20261127100000_widgets/,
  );
});

test('two files of one timestamp are refused (their order would be a matter of spelling)', () => {
  write('Migration20261127100000_widgets.ts');
  write('Migration20261127100000_gadgets.ts');
  expect(() => discoverMigrations(dir, '.ts')).toThrow(
    /Migration20261127100000_gadgets and Migration20261127100000_widgets have the same timestamp/,
  );
});

test('the build reads its compiled files (.js) and ignores their source maps', () => {
  fs.writeFileSync(path.join(dir, 'Migration20261127100000_widgets.js'), 'exports.Migration20261127100000_widgets = class { async up() {} };\n');
  fs.writeFileSync(path.join(dir, 'Migration20261127100000_widgets.js.map'), '{}');
  expect(discoverMigrations(dir, '.js').map((m) => m.name)).toEqual(['Migration20261127100000_widgets']);
  fs.writeFileSync(path.join(dir, 'Migration20261127100100_gadgets.ts'), 'export {};\n');
  expect(() => discoverMigrations(dir, '.js')).toThrow(/Migration20261127100100_gadgets\.ts: the migrations folder holds migrations only/);
});
