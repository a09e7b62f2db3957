import 'reflect-metadata';
import type { MikroORM, Options } from '@mikro-orm/postgresql';
import { entityList } from './src/db/entities';
import { ormOptions } from './src/db/orm-options';
import { initOrm } from './src/db/orm';
import { modules } from './src/modules';

/** The entity classes of every module (src/modules/index.ts), handed to the db layer. */
export const entities = entityList(modules);

/** MikroORM options for a connection URL over the modules' entities; the app, the CLI and the tests all use this. */
export function ormConfig(clientUrl: string, extra: Partial<Options> = {}): Options {
  return ormOptions(clientUrl, entities, extra);
}

/** The service's ORM: migrated (`migrate`) and connected over the modules' entities. */
export function initAppOrm(url: string, extra: Partial<Options> = {}): Promise<MikroORM> {
  return initOrm(url, entities, extra);
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:54329/leadnet');
