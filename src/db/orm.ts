import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config';

/** Connects the ORM and brings the schema up to date. */
export async function initOrm(url: string, extra: Partial<Options> = {}): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(url, extra));
  await orm.getMigrator().up();
  return orm;
}
