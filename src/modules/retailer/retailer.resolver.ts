import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ConnectionArgs, ConnectionFilterArgs, ConnectionType } from '../../graphql/connection';
import type { Context } from '../../context';
import { ListArgs, PageType } from '../../graphql/common';
import { Retailer } from './retailer.entity';
import { RetailerInput } from './retailer.input';
import { RetailerService } from './retailer.service';

export const RetailerPage = PageType(Retailer, 'RetailerPage');
export const RetailerConnection = ConnectionType(Retailer, 'Retailer');

@Resolver(() => Retailer)
export class RetailerResolver {
  @Query(() => RetailerPage, { description: 'Retailers visible to the caller.' })
  retailers(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new RetailerService(ctx).list(args);
  }

  @Query(() => RetailerConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  retailersConnection(@Args(() => ConnectionFilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new RetailerService(ctx).connection(filter, paging);
  }

  @Query(() => Retailer)
  retailer(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return new RetailerService(ctx).get(id);
  }

  @Mutation(() => Retailer, { description: 'Platform operator only.' })
  createRetailer(@Arg('input', () => RetailerInput) input: RetailerInput, @Ctx() ctx: Context) {
    return new RetailerService(ctx).create(input);
  }

  @Mutation(() => Retailer, { description: 'Platform operator only.' })
  updateRetailer(@Arg('id', () => ID) id: string, @Arg('input', () => RetailerInput) input: RetailerInput, @Ctx() ctx: Context) {
    return new RetailerService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator only; refused while the retailer has company retailers.' })
  async deleteRetailer(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await new RetailerService(ctx).delete(id);
    return id;
  }
}
