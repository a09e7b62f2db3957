import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { RoutingService } from './routing.service';
import { RoutingAddressInput, RoutingDecision, RoutingSettings, RoutingSettingsInput } from './routing.types';

const COMPANY = { nullable: true, description: "Defaults to the caller's company; the platform operator names one." };

@Resolver()
export class RoutingResolver {
  @Query(() => RoutingSettings, { description: "A company's lead routing settings. Platform operator, or a company admin for its company." })
  routingSettings(@Arg('companyId', () => ID, COMPANY) companyId: string | null, @Ctx() ctx: Context) {
    return new RoutingService(ctx).settings(companyId);
  }

  @Mutation(() => RoutingSettings, { description: 'Turns lead routing on or off and sets its rules. Platform operator, or a company admin for its company.' })
  updateRoutingSettings(
    @Arg('input', () => RoutingSettingsInput, { description: 'The attributes to change; those not sent keep their values.' }) input: RoutingSettingsInput,
    @Arg('companyId', () => ID, COMPANY) companyId: string | null,
    @Ctx() ctx: Context,
  ) {
    return new RoutingService(ctx).update(companyId, input);
  }

  @Query(() => RoutingDecision, { description: 'Dry run: the store a lead at this address would be routed to, and why. Nothing is written.' })
  routeAddress(
    @Arg('address', () => RoutingAddressInput, { description: "The lead's address, geocoded as a lead's location is." }) address: RoutingAddressInput,
    @Arg('companyId', () => ID, COMPANY) companyId: string | null,
    @Arg('territoryId', () => ID, { nullable: true, description: "The lead's territory, for `nearestInTerritory`." }) territoryId: string | null,
    @Ctx() ctx: Context,
  ) {
    return new RoutingService(ctx).dryRun(companyId, address, territoryId);
  }
}
