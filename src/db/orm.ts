import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config';
import { migrate } from './migrate';

/** Brings the schema up to date (once across replicas, `migrate`) and connects the ORM. */
export async function initOrm(url: string, extra: Partial<Options> = {}): Promise<MikroORM> {
  // Only the logger: the migration's own statements stay out of a query log (tests count statements).
  const { logger, loggerFactory, colors } = extra;
  await migrate(url, { ...(logger && { logger }), ...(loggerFactory && { loggerFactory }), ...(colors !== undefined && { colors }) });
  return MikroORM.init(ormConfig(url, extra));
}
