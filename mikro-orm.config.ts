import 'reflect-metadata';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './src/db/entities';
import { migrationsList } from './migrations';

/** MikroORM options for a connection URL; the app, the CLI and the tests all use this. */
export function ormConfig(clientUrl: string, extra: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    // Loading TS entities and migrations through require keeps tsx, ts-jest and compiled JS alike.
    dynamicImportProvider: (id: string) => Promise.resolve(require(id)),
    discovery: { warnWhenNoEntities: false },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: 'migrations',
      pathTs: 'migrations',
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
    },
    pool: { min: 0, max: 10 },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ...extra,
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:54329/leadnet');
