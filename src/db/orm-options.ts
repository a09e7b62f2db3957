import 'reflect-metadata';
import { defineConfig, type EntityClass, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { projectMigrations } from './migration-files';
import { TraceparentSubscriber } from './traceparent';

/**
 * MikroORM options for a connection URL and the entity classes the composition hands in
 * (`entityList(modules)`, mikro-orm.config.ts): the db layer knows no module.
 */
export function ormOptions(clientUrl: string, entities: readonly EntityClass<any>[], extra: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities: [...entities],
    extensions: [Migrator],
    // Loading TS entities and migrations through require keeps tsx, ts-jest and compiled JS alike.
    dynamicImportProvider: (id: string) => Promise.resolve(require(id)),
    discovery: { warnWhenNoEntities: false },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: 'migrations',
      pathTs: 'migrations',
      // Every file of migrations/, by name (src/db/migration-files.ts): adding a file adds a migration.
      migrationsList: projectMigrations(),
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
    },
    pool: { min: 0, max: 10 },
    allowGlobalContext: false,
    // A sampled request's traceparent for the events its write transactions record (docs/tracing.md).
    subscribers: [new TraceparentSubscriber()],
    forceUtcTimezone: true,
    ...extra,
  });
}
