import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { EntityClass } from '@mikro-orm/postgresql';
import { selectedFields } from '../../graphql/lookahead';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { visibleLoader } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { companyRetailerVisible } from '../company-retailer/company-retailer.search';
import { companyStoreTypeVisible } from '../company-store-type/company-store-type.search';
import { retailerLocationVisible } from '../retailer-location/retailer-location.search';
import { territoryVisible } from '../territory/territory.search';
import { Company } from '../company/company.entity';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { Territory } from '../territory/territory.entity';
import { CompanyStoreType } from '../company-store-type/company-store-type.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Hour } from '../retailer-location/hour.entity';
import { byWeekday } from '../retailer-location/hours';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import { DeliveryArea } from './delivery-area.entity';
import { HourException } from './hour-exception.entity';
import { byDate } from './hour-exceptions';
import { CompanyRetailerLocationInput } from './company-retailer-location.input';
import { CompanyRetailerLocationService } from './company-retailer-location.service';
import { listInputs } from '../../search/list-args';
import { crlSearch } from './company-retailer-location.search';
import { crlEmbeds, type CrlRow } from './company-retailer-location.repository';

const CompanyRetailerLocationLists = listInputs(crlSearch, 'CompanyRetailerLocation');

/** An entity (shows, writes, the connection) or a plain row of the list page (not converted to the class: no getters to assign). */
type CrlRoot = CompanyRetailerLocation | CrlRow;

export const CompanyRetailerLocationPage = PageType(CompanyRetailerLocation, 'CompanyRetailerLocationPage');
export const CompanyRetailerLocationConnection = ConnectionType(CompanyRetailerLocation, 'CompanyRetailerLocation');

/** The embedded rows of a list page: address, email, phone number, hours, delivery areas. */
const EMBEDDED_ROWS = ['physicalAddress', 'generalEmail', 'generalPhoneNumber', 'retailerLocationHours', 'hourExceptions', 'deliveryAreas'];

/** Whether the list operation asks for the `createdAt` or `updatedAt` of an embedded row. */
function embedsStamps(info: GraphQLResolveInfo): boolean {
  const asked = selectedFields(info, ...EMBEDDED_ROWS.map((field) => ['nodes', field]));
  return asked.has('createdAt') || asked.has('updatedAt');
}

/** The linked retailer location, which holds the contact objects and hours when present. */
function linkedLocation(crl: CrlRoot, ctx: Context): Promise<RetailerLocation | null> {
  return crl.retailerLocation ? ctx.loaders.byId(RetailerLocation).load(crl.retailerLocation.id) : Promise.resolve(null);
}

/** A contact object of the linked retailer location when there is one, else the CRL's own. */
async function contactOf<T extends { id: string }>(
  crl: CrlRoot,
  ctx: Context,
  field: 'physicalAddress' | 'generalEmail' | 'generalPhoneNumber',
  type: EntityClass<T>,
): Promise<T | null> {
  const ref = ((await linkedLocation(crl, ctx)) ?? (crl as CompanyRetailerLocation))[field];
  return ref ? ctx.loaders.byId(type).load(ref.id) : null;
}

/** Weekly hours, Monday first: the linked retailer location's, else the CRL's own. */
async function hoursOf(crl: CrlRoot, ctx: Context): Promise<Hour[]> {
  const rl = await linkedLocation(crl, ctx);
  const hours = rl ? await ctx.loaders.manyBy(Hour, 'retailerLocation').load(rl.id) : await ctx.loaders.manyBy(Hour, 'companyRetailerLocation').load(crl.id);
  return byWeekday(hours);
}

/** Dated exceptions, by date: the linked retailer location's, else the CRL's own (as the weekly hours). */
async function exceptionsOf(crl: CrlRoot, ctx: Context): Promise<HourException[]> {
  const rl = await linkedLocation(crl, ctx);
  const exceptions = rl
    ? await ctx.loaders.manyBy(HourException, 'retailerLocation').load(rl.id)
    : await ctx.loaders.manyBy(HourException, 'companyRetailerLocation').load(crl.id);
  return byDate(exceptions);
}

@Resolver(() => CompanyRetailerLocation)
export class CompanyRetailerLocationResolver {
  @Query(() => CompanyRetailerLocationPage, { description: 'Company retailer locations visible to the caller.' })
  companyRetailerLocations(@Args(() => CompanyRetailerLocationLists.ListArgs) args: ListArgs, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
    return new CompanyRetailerLocationService(ctx).list(args, embedsStamps(info), selectedFields(info, ['nodes']).has('hourExceptions'));
  }

  @Query(() => CompanyRetailerLocationConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  companyRetailerLocationsConnection(@Args(() => CompanyRetailerLocationLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new CompanyRetailerLocationService(ctx).connection(filter, paging);
  }

  @Query(() => CompanyRetailerLocation, { description: 'One company retailer location the caller sees, by id.' })
  companyRetailerLocation(@Arg('id', () => ID, { description: "The company retailer location's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new CompanyRetailerLocationService(ctx).get(id);
  }

  @Mutation(() => CompanyRetailerLocation, { description: 'Links a store to a company retailer: company admins, and territory and retailer managers within their scope. Attributes the role may not write are dropped.' })
  createCompanyRetailerLocation(@Arg('input', () => CompanyRetailerLocationInput, { description: "The new company retailer location's attributes." }) input: CompanyRetailerLocationInput, @Ctx() ctx: Context) {
    return new CompanyRetailerLocationService(ctx).create(input);
  }

  @Mutation(() => CompanyRetailerLocation, {
    description:
      'Changes the attributes sent, within what the role may write (contract 2.5); nested `deliveryAreas` and `retailerLocationHours` items by `id`, `_destroy` removes. ' +
      'Address, email, phone and hours of a linked retailer location are written there.',
  })
  updateCompanyRetailerLocation(
    @Arg('id', () => ID, { description: "The company retailer location to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string,
    @Arg('input', () => CompanyRetailerLocationInput, { description: 'The attributes to change; those not sent keep their values.' }) input: CompanyRetailerLocationInput,
    @Ctx() ctx: Context,
  ) {
    return new CompanyRetailerLocationService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Deletes the location (refused while leads are assigned to it) and returns its id.' })
  async deleteCompanyRetailerLocation(@Arg('id', () => ID, { description: "The company retailer location to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new CompanyRetailerLocationService(ctx).delete(id);
    return id;
  }

  // The fields a list row answers from what its statement read (`crlEmbeds`) answer synchronously: no
  // promise per field and row; an entity (show, writes, the connection) reads through the loaders.
  @FieldResolver(() => String, { nullable: true, description: "Its own name, else the retailer location's." })
  name(@Root() crl: CrlRoot, @Ctx() ctx: Context): string | null | Promise<string | null> {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.name;
    if (crl.name) return crl.name;
    return linkedLocation(crl, ctx).then((rl) => rl?.name ?? null);
  }

  @FieldResolver(() => ID, { nullable: true, description: "Its own territory, else its company retailer's." })
  territoryId(@Root() crl: CrlRoot, @Ctx() ctx: Context): string | null | Promise<string | null> {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.territoryId;
    if (crl.territory) return crl.territory.id;
    return ctx.loaders.byId(CompanyRetailer).load(crl.companyRetailer.id).then((cr) => cr?.territory?.id ?? null);
  }

  @FieldResolver(() => Territory, {
    nullable: true,
    description: "Its own territory, else its company retailer's; null when the caller does not see it (retailer users).",
  })
  async territory(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const id = await this.territoryId(crl, ctx);
    return id ? visibleLoader(ctx, territoryVisible).load(id) : null;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    return visibleLoader(ctx, companyVisible).load(crl.company.id);
  }

  @FieldResolver(() => CompanyRetailer, { nullable: true, description: 'Null when the caller does not see it.' })
  companyRetailer(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    return visibleLoader(ctx, companyRetailerVisible).load(crl.companyRetailer.id);
  }

  @FieldResolver(() => RetailerLocation, { nullable: true, description: 'Null when it has none or the caller does not see it.' })
  retailerLocation(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    return crl.retailerLocation ? visibleLoader(ctx, retailerLocationVisible).load(crl.retailerLocation.id) : null;
  }

  @FieldResolver(() => CompanyStoreType, { nullable: true, description: 'Null when it has none or the caller does not see it (retailer users).' })
  companyStoreType(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    return crl.companyStoreType ? visibleLoader(ctx, companyStoreTypeVisible).load(crl.companyStoreType.id) : null;
  }

  @FieldResolver(() => Location, { nullable: true, description: "The retailer location's when linked." })
  physicalAddress(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.physicalAddress;
    return contactOf(crl, ctx, 'physicalAddress', Location);
  }

  @FieldResolver(() => Email, { nullable: true, description: "The retailer location's when linked." })
  generalEmail(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.generalEmail;
    return contactOf(crl, ctx, 'generalEmail', Email);
  }

  @FieldResolver(() => PhoneNumber, { nullable: true, description: "The retailer location's when linked." })
  generalPhoneNumber(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.generalPhoneNumber;
    return contactOf(crl, ctx, 'generalPhoneNumber', PhoneNumber);
  }

  @FieldResolver(() => [Hour], { description: "Weekly hours, Monday first; the retailer location's when linked." })
  retailerLocationHours(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.hours;
    return hoursOf(crl, ctx);
  }

  @FieldResolver(() => [HourException], { description: "Dated exceptions to the weekly hours (holidays, special hours), by date; the retailer location's when linked." })
  hourExceptions(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.hourExceptions;
    return exceptionsOf(crl, ctx);
  }

  @FieldResolver(() => [DeliveryArea], { description: 'By postal code.' })
  deliveryAreas(@Root() crl: CrlRoot, @Ctx() ctx: Context) {
    const embeds = crlEmbeds(crl);
    if (embeds) return embeds.deliveryAreas;
    return ctx.loaders.manyBy(DeliveryArea, 'companyRetailerLocation', { postalCode: 'asc', country: 'asc', id: 'asc' }).load(crl.id);
  }
}
