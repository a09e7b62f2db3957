import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../auth/visibility';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { Collection } from './collection.entity';
import { CollectionInput } from './collection.input';
import { collectionService, collectionSearch } from './collection.service';
import { listInputs } from '../../graphql/list-args';

const CollectionLists = listInputs(collectionSearch, 'Collection');

export const CollectionPage = PageType(Collection, 'CollectionPage');
export const CollectionConnection = ConnectionType(Collection, 'Collection');

@Resolver(() => Collection)
export class CollectionResolver {
  @Query(() => CollectionPage, { description: "The collections of the caller's company (all of them for the platform operator)." })
  collections(@Args(() => CollectionLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return collectionService(ctx).list(args);
  }

  @Query(() => CollectionConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  collectionsConnection(@Args(() => CollectionLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return collectionService(ctx).connection(filter, paging);
  }

  @Query(() => Collection)
  collection(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return collectionService(ctx).get(id);
  }

  @Mutation(() => Collection, { description: 'Platform operator, or a company admin for its company.' })
  createCollection(@Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() ctx: Context) {
    return collectionService(ctx).create(input);
  }

  @Mutation(() => Collection, { description: 'Platform operator, or a company admin for its company.' })
  updateCollection(@Arg('id', () => ID) id: string, @Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() ctx: Context) {
    return collectionService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteCollection(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await collectionService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: Collection, @Ctx() ctx: Context) {
    return visibleLoader(ctx, 'Company').load(record.company.id);
  }
}
