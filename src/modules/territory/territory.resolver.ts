import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../auth/visibility';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { Territory } from './territory.entity';
import { TerritoryInput } from './territory.input';
import { territoryService, territorySearch } from './territory.service';
import { listInputs } from '../../graphql/list-args';

const TerritoryLists = listInputs(territorySearch, 'Territory');

export const TerritoryPage = PageType(Territory, 'TerritoryPage');
export const TerritoryConnection = ConnectionType(Territory, 'Territory');

@Resolver(() => Territory)
export class TerritoryResolver {
  @Query(() => TerritoryPage, { description: "The territorys of the caller's company (all of them for the platform operator)." })
  territories(@Args(() => TerritoryLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return territoryService(ctx).list(args);
  }

  @Query(() => TerritoryConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  territoriesConnection(@Args(() => TerritoryLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return territoryService(ctx).connection(filter, paging);
  }

  @Query(() => Territory)
  territory(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return territoryService(ctx).get(id);
  }

  @Mutation(() => Territory, { description: 'Platform operator, or a company admin for its company.' })
  createTerritory(@Arg('input', () => TerritoryInput) input: TerritoryInput, @Ctx() ctx: Context) {
    return territoryService(ctx).create(input);
  }

  @Mutation(() => Territory, { description: 'Platform operator, or a company admin for its company.' })
  updateTerritory(@Arg('id', () => ID) id: string, @Arg('input', () => TerritoryInput) input: TerritoryInput, @Ctx() ctx: Context) {
    return territoryService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteTerritory(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await territoryService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: Territory, @Ctx() ctx: Context) {
    return visibleLoader(ctx, 'Company').load(record.company.id);
  }
}
