import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { Collection } from './collection.entity';
import { CollectionInput } from './collection.input';
import { collectionService } from './collection.service';
import { collectionSearch } from './collection.search';
import { listInputs } from '../../search/list-args';

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

  @Query(() => Collection, { description: 'One collection the caller sees, by id.' })
  collection(@Arg('id', () => ID, { description: "The collection's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return collectionService(ctx).get(id);
  }

  @Mutation(() => Collection, { description: 'Platform operator, or a company admin for its company.' })
  createCollection(@Arg('input', () => CollectionInput, { description: "The new collection's attributes." }) input: CollectionInput, @Ctx() ctx: Context) {
    return collectionService(ctx).create(input);
  }

  @Mutation(() => Collection, { description: 'Platform operator, or a company admin for its company.' })
  updateCollection(@Arg('id', () => ID, { description: "The collection to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => CollectionInput, { description: 'The attributes to change; those not sent keep their values.' }) input: CollectionInput, @Ctx() ctx: Context) {
    return collectionService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteCollection(@Arg('id', () => ID, { description: "The collection to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await collectionService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: Collection, @Ctx() ctx: Context) {
    return visibleLoader(ctx, companyVisible).load(record.company.id);
  }
}
