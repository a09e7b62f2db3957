import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { Retailer } from './retailer.entity';
import { RetailerInput } from './retailer.input';
import { RetailerService } from './retailer.service';
import { listInputs } from '../../search/list-args';
import { retailerSearch } from './retailer.search';

const RetailerLists = listInputs(retailerSearch, 'Retailer');

export const RetailerPage = PageType(Retailer, 'RetailerPage');
export const RetailerConnection = ConnectionType(Retailer, 'Retailer');

@Resolver(() => Retailer)
export class RetailerResolver {
  @Query(() => RetailerPage, { description: 'Retailers visible to the caller.' })
  retailers(@Args(() => RetailerLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new RetailerService(ctx).list(args);
  }

  @Query(() => RetailerConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  retailersConnection(@Args(() => RetailerLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new RetailerService(ctx).connection(filter, paging);
  }

  @Query(() => Retailer, { description: 'One retailer the caller sees, by id.' })
  retailer(@Arg('id', () => ID, { description: "The retailer's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new RetailerService(ctx).get(id);
  }

  @Mutation(() => Retailer, { description: 'Platform operator only.' })
  createRetailer(@Arg('input', () => RetailerInput, { description: "The new retailer's attributes." }) input: RetailerInput, @Ctx() ctx: Context) {
    return new RetailerService(ctx).create(input);
  }

  @Mutation(() => Retailer, { description: 'Platform operator only.' })
  updateRetailer(@Arg('id', () => ID, { description: "The retailer to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => RetailerInput, { description: 'The attributes to change; those not sent keep their values.' }) input: RetailerInput, @Ctx() ctx: Context) {
    return new RetailerService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator only; refused while the retailer has company retailers.' })
  async deleteRetailer(@Arg('id', () => ID, { description: "The retailer to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new RetailerService(ctx).delete(id);
    return id;
  }
}
