import { MikroORM, type EntityClass, type Options } from '@mikro-orm/postgresql';
import { ormOptions } from './orm-options';
import { migrate } from './migrate';

/** Brings the schema up to date (once across replicas, `migrate`) and connects the ORM of `entities`. */
export async function initOrm(url: string, entities: readonly EntityClass<any>[], extra: Partial<Options> = {}): Promise<MikroORM> {
  // Only the logger: the migration's own statements stay out of a query log (tests count statements).
  const { logger, loggerFactory, colors } = extra;
  await migrate(url, entities, { ...(logger && { logger }), ...(loggerFactory && { loggerFactory }), ...(colors !== undefined && { colors }) });
  return MikroORM.init(ormOptions(url, entities, extra));
}
