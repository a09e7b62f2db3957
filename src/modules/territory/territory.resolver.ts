import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { Territory } from './territory.entity';
import { TerritoryInput } from './territory.input';
import { territoryService } from './territory.service';
import { territorySearch } from './territory.search';
import { listInputs } from '../../search/list-args';

const TerritoryLists = listInputs(territorySearch, 'Territory');

export const TerritoryPage = PageType(Territory, 'TerritoryPage');
export const TerritoryConnection = ConnectionType(Territory, 'Territory');

@Resolver(() => Territory)
export class TerritoryResolver {
  @Query(() => TerritoryPage, { description: "The territories of the caller's company (all of them for the platform operator)." })
  territories(@Args(() => TerritoryLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return territoryService(ctx).list(args);
  }

  @Query(() => TerritoryConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  territoriesConnection(@Args(() => TerritoryLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return territoryService(ctx).connection(filter, paging);
  }

  @Query(() => Territory, { description: 'One territory the caller sees, by id.' })
  territory(@Arg('id', () => ID, { description: "The territory's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return territoryService(ctx).get(id);
  }

  @Mutation(() => Territory, { description: 'Platform operator, or a company admin for its company.' })
  createTerritory(@Arg('input', () => TerritoryInput, { description: "The new territory's attributes." }) input: TerritoryInput, @Ctx() ctx: Context) {
    return territoryService(ctx).create(input);
  }

  @Mutation(() => Territory, { description: 'Platform operator, or a company admin for its company.' })
  updateTerritory(@Arg('id', () => ID, { description: "The territory to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => TerritoryInput, { description: 'The attributes to change; those not sent keep their values.' }) input: TerritoryInput, @Ctx() ctx: Context) {
    return territoryService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteTerritory(@Arg('id', () => ID, { description: "The territory to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await territoryService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: Territory, @Ctx() ctx: Context) {
    return visibleLoader(ctx, companyVisible).load(record.company.id);
  }
}
