import type { EntityClass, FilterQuery } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { Loaders } from '../../graphql/loaders';

/**
 * The record as committed, for the response of a write. The request's identity map and DataLoaders
 * are dropped first: a GraphQL document may run several mutations, and none may see a stale load.
 */
export async function reloadAfterWrite<T extends { id: string }>(ctx: Context, entity: EntityClass<T>, id: string): Promise<T> {
  ctx.em.clear();
  ctx.loaders = new Loaders(ctx.em);
  return ctx.em.findOneOrFail(entity, { id } as unknown as FilterQuery<T>);
}
