import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../access/visibility';
import { retailerVisible } from '../retailer/retailer.search';
import { PageType, type ListArgs } from '../../graphql/common';
import { Retailer } from '../retailer/retailer.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { RetailerLocation } from './retailer-location.entity';
import { RetailerLocationInput } from './retailer-location.input';
import { RetailerLocationService } from './retailer-location.service';
import { Hour } from './hour.entity';
import { byWeekday } from './hours';
import { listInputs } from '../../search/list-args';
import { retailerLocationSearch } from './retailer-location.search';

const RetailerLocationLists = listInputs(retailerLocationSearch, 'RetailerLocation');

export const RetailerLocationPage = PageType(RetailerLocation, 'RetailerLocationPage');
export const RetailerLocationConnection = ConnectionType(RetailerLocation, 'RetailerLocation');

@Resolver(() => RetailerLocation)
export class RetailerLocationResolver {
  @Query(() => RetailerLocationPage, { description: 'Retailer locations (stores) visible to the caller.' })
  retailerLocations(@Args(() => RetailerLocationLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new RetailerLocationService(ctx).list(args);
  }

  @Query(() => RetailerLocationConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  retailerLocationsConnection(@Args(() => RetailerLocationLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new RetailerLocationService(ctx).connection(filter, paging);
  }

  @Query(() => RetailerLocation, { description: 'One retailer location the caller sees, by id.' })
  retailerLocation(@Arg('id', () => ID, { description: "The retailer location's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new RetailerLocationService(ctx).get(id);
  }

  @Mutation(() => RetailerLocation, { description: 'Platform operator, or a retailer admin for its retailer.' })
  createRetailerLocation(@Arg('input', () => RetailerLocationInput, { description: "The new retailer location's attributes." }) input: RetailerLocationInput, @Ctx() ctx: Context) {
    return new RetailerLocationService(ctx).create(input);
  }

  @Mutation(() => RetailerLocation, { description: 'Platform operator, or a retailer admin for its retailer.' })
  updateRetailerLocation(@Arg('id', () => ID, { description: "The retailer location to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => RetailerLocationInput, { description: 'The attributes to change; those not sent keep their values.' }) input: RetailerLocationInput, @Ctx() ctx: Context) {
    return new RetailerLocationService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Refused while company retailer locations link it.' })
  async deleteRetailerLocation(@Arg('id', () => ID, { description: "The retailer location to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new RetailerLocationService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Retailer, { nullable: true, description: 'Null when the caller does not see it.' })
  retailer(@Root() rl: RetailerLocation, @Ctx() ctx: Context) {
    return visibleLoader(ctx, retailerVisible).load(rl.retailer.id);
  }

  @FieldResolver(() => Location, { nullable: true, description: "The store's address; null when none." })
  physicalAddress(@Root() rl: RetailerLocation, @Ctx() ctx: Context) {
    return rl.physicalAddress ? ctx.loaders.byId(Location).load(rl.physicalAddress.id) : null;
  }

  @FieldResolver(() => Email, { nullable: true, description: "The store's general email; null when none." })
  generalEmail(@Root() rl: RetailerLocation, @Ctx() ctx: Context) {
    return rl.generalEmail ? ctx.loaders.byId(Email).load(rl.generalEmail.id) : null;
  }

  @FieldResolver(() => PhoneNumber, { nullable: true, description: "The store's general phone number; null when none." })
  generalPhoneNumber(@Root() rl: RetailerLocation, @Ctx() ctx: Context) {
    return rl.generalPhoneNumber ? ctx.loaders.byId(PhoneNumber).load(rl.generalPhoneNumber.id) : null;
  }

  @FieldResolver(() => [Hour], { description: 'Weekly hours, Monday first.' })
  async hours(@Root() rl: RetailerLocation, @Ctx() ctx: Context) {
    return byWeekday(await ctx.loaders.manyBy(Hour, 'retailerLocation').load(rl.id));
  }
}
