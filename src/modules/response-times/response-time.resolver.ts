import { Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { ResponseTimeService } from './response-time.service';
import { leadResponseStats, LeadResponseStatsArgs, LeadResponseStatsRow } from './response-stats';
import { ResponseTimeSettings, ResponseTimeSettingsInput } from './response-time.types';

@Resolver(() => ResponseTimeSettings)
export class ResponseTimeResolver {
  @Query(() => ResponseTimeSettings, { description: "The caller's company's first-response time. Company admins." })
  responseTimeSettings(@Ctx() ctx: Context) {
    return new ResponseTimeService(ctx).get();
  }

  @Query(() => [LeadResponseStatsRow], {
    description: 'First-response figures over the leads the caller\'s lead list shows for `where` (same scope, same filter), grouped. Network users.',
  })
  leadResponseStats(@Args(() => LeadResponseStatsArgs) args: LeadResponseStatsArgs, @Ctx() ctx: Context) {
    return leadResponseStats(ctx, args);
  }

  @Mutation(() => ResponseTimeSettings, { description: "Changes the caller's company's first-response time. Company admins." })
  updateResponseTimeSettings(@Arg('input', () => ResponseTimeSettingsInput, { description: 'The settings to change; those left out keep their value.' }) input: ResponseTimeSettingsInput, @Ctx() ctx: Context) {
    return new ResponseTimeService(ctx).update(input);
  }
}
