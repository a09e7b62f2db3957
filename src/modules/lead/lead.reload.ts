import type { EntityClass, FilterQuery } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { Loaders } from '../../db/loaders';
import { notFound } from '../../errors';

/**
 * The record as committed, for the response of a write. The request's identity map and DataLoaders
 * are dropped first: a GraphQL document may run several mutations, and none may see a stale load.
 */
export async function reloadAfterWrite<T extends { id: string }>(ctx: Context, entity: EntityClass<T>, id: string): Promise<T> {
  ctx.em.clear();
  ctx.loaders = new Loaders(ctx.em);
  const record = await ctx.em.findOne(entity, { id } as unknown as FilterQuery<T>);
  // Destroyed by a concurrent request right after this write committed.
  if (!record) throw notFound(entity.name, id);
  return record;
}
