import fs from 'node:fs';
import path from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';

/** The migrations folder: `migrations/` at the root (`dist/migrations/` in the production build). */
export const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'migrations');

/** `.ts` from the sources (tsx, ts-jest), `.js` from the build: the extension this file runs with. */
const CODE_EXTENSION = path.extname(__filename);

const NAME = /^Migration(\d{14})_[A-Za-z0-9_]+$/;

/**
 * The migrations of a folder, oldest first: every `Migration<yyyymmddhhmmss>_<name>.ts` file (`.js` in
 * the build), each exporting the class of its file name, which is also the name recorded in
 * `mikro_orm_migrations`. Adding a file is enough to add a migration. Anything else in the folder (a
 * misspelt name, a file without its class, two files of one timestamp) stops the start with a message
 * naming the file, rather than being skipped: a skipped migration would go unnoticed until production.
 * Loaded with `require`, which tsx, ts-jest and compiled JavaScript all understand (MikroORM's own
 * `import()` of a glob cannot load TypeScript under jest).
 */
export function discoverMigrations(dir: string = MIGRATIONS_DIR, extension: string = CODE_EXTENSION): MigrationObject[] {
  const folder = path.relative(process.cwd(), dir) || '.';
  const files = fs
    .readdirSync(dir, { withFileTypes: true })
    // Source maps and declarations of the build, and hidden files, are not code.
    .filter((entry) => !entry.name.startsWith('.') && !entry.name.endsWith('.map') && !entry.name.endsWith('.d.ts'))
    .map((entry) => {
      const name = path.basename(entry.name, extension);
      if (!entry.isFile() || entry.name !== `${name}${extension}` || !NAME.test(name)) {
        throw new Error(
          `${path.join(folder, entry.name)}: the migrations folder holds migrations only, each named ` +
            `Migration<yyyymmddhhmmss>_<name>${extension} (e.g. Migration20261127100000_widgets${extension}) and exporting the class of that name`,
        );
      }
      return { name, file: path.join(dir, entry.name) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const seen = new Map<string, string>();
  for (const { name } of files) {
    const stamp = NAME.exec(name)![1];
    const other = seen.get(stamp);
    if (other) throw new Error(`${folder}: ${other} and ${name} have the same timestamp; give the newer one a later one`);
    seen.set(stamp, name);
  }

  return files.map(({ name, file }) => {
    const exported = require(file)[name];
    if (typeof exported !== 'function' || typeof exported.prototype?.up !== 'function') {
      throw new Error(`${path.join(folder, path.basename(file))} must export the migration class ${name} (export class ${name} extends Migration)`);
    }
    return { name, class: exported };
  });
}

let cached: MigrationObject[] | undefined;

/** The project's migrations (`migrations/`), read once per process. */
export function projectMigrations(): MigrationObject[] {
  cached ??= discoverMigrations();
  return cached;
}
