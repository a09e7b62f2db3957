import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { LocatorDemandService } from './locator-demand.service';
import { LocatorDemandGroupBy, LocatorDemandReport, LocatorDemandWhere } from './locator-demand.types';

@Resolver()
export class LocatorDemandResolver {
  @Query(() => LocatorDemandReport, {
    description:
      "What visitors searched for in a company's public store locator (docs/locator-demand.md): searches counted per coarse cell, product, UTC day " +
      'and outcome (nothing found, only far stores), without any IP address or exact point. A company admin reads its own company; the platform ' +
      'operator any company (`companyId`). Every other role is FORBIDDEN; another company is NOT_FOUND.',
  })
  locatorDemand(
    @Arg('companyId', () => ID, { nullable: true, description: "The company (UUID); the caller's own when left out (the platform operator names one)." }) companyId: string | null,
    @Arg('where', () => LocatorDemandWhere, { description: 'The days, and optionally a place and a product.' }) where: LocatorDemandWhere,
    @Arg('groupBy', () => [LocatorDemandGroupBy], { defaultValue: [LocatorDemandGroupBy.CELL], description: 'How to group (none: one group of every search).' })
    groupBy: LocatorDemandGroupBy[],
    @Arg('first', () => Int, { defaultValue: 500, description: 'Groups answered at most, most searches first (1 to 5,000).' }) first: number,
    @Ctx() ctx: Context,
  ) {
    return new LocatorDemandService(ctx).report(companyId, where, groupBy, first);
  }
}
