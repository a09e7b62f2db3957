import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { visibleLoader } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { retailerVisible } from '../retailer/retailer.search';
import { territoryVisible } from '../territory/territory.search';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { Location } from '../contact/location.entity';
import { CompanyRetailer } from './company-retailer.entity';
import { CompanyRetailerInput } from './company-retailer.input';
import { CompanyRetailerService } from './company-retailer.service';
import { listInputs } from '../../search/list-args';
import { companyRetailerSearch } from './company-retailer.search';
import { companyRetailerEmbeds, locationsCountLoader, type CompanyRetailerRow } from './company-retailer.repository';

/** An entity (shows, writes, the connection) or a plain row of the list page (not converted to the class: no getters to assign). */
type CompanyRetailerRoot = CompanyRetailer | CompanyRetailerRow;

const CompanyRetailerLists = listInputs(companyRetailerSearch, 'CompanyRetailer');

export const CompanyRetailerPage = PageType(CompanyRetailer, 'CompanyRetailerPage');
export const CompanyRetailerConnection = ConnectionType(CompanyRetailer, 'CompanyRetailer');

@Resolver(() => CompanyRetailer)
export class CompanyRetailerResolver {
  @Query(() => CompanyRetailerPage, { description: 'Company retailers visible to the caller.' })
  companyRetailers(@Args(() => CompanyRetailerLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).list(args);
  }

  @Query(() => CompanyRetailerConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  companyRetailersConnection(@Args(() => CompanyRetailerLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).connection(filter, paging);
  }

  @Query(() => CompanyRetailer, { description: 'One company retailer the caller sees, by id.' })
  companyRetailer(@Arg('id', () => ID, { description: "The company retailer's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).get(id);
  }

  @Mutation(() => CompanyRetailer, { description: "Joins the caller's company to a retailer." })
  createCompanyRetailer(@Arg('input', () => CompanyRetailerInput, { description: "The new company retailer's attributes." }) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).create(input);
  }

  @Mutation(() => CompanyRetailer, { description: 'Changes the attributes sent.' })
  updateCompanyRetailer(@Arg('id', () => ID, { description: "The company retailer to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => CompanyRetailerInput, { description: 'The attributes to change; those not sent keep their values.' }) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).update(id, input);
  }

  @Mutation(() => CompanyRetailer, { description: 'Replaces the writable attributes: those left out return to their defaults.' })
  replaceCompanyRetailer(@Arg('id', () => ID, { description: "The company retailer to replace (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => CompanyRetailerInput, { description: 'Every writable attribute; those not sent are cleared or return to their defaults.' }) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the company retailer (refused while it has locations) and returns its id.' })
  async deleteCompanyRetailer(@Arg('id', () => ID, { description: "The company retailer to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new CompanyRetailerService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() cr: CompanyRetailerRoot, @Ctx() ctx: Context) {
    const embeds = companyRetailerEmbeds(cr);
    return embeds ? embeds.company : visibleLoader(ctx, companyVisible).load(cr.company.id);
  }

  @FieldResolver(() => Retailer, { nullable: true, description: 'Null when the caller does not see it.' })
  retailer(@Root() cr: CompanyRetailerRoot, @Ctx() ctx: Context) {
    const embeds = companyRetailerEmbeds(cr);
    return embeds ? embeds.retailer : visibleLoader(ctx, retailerVisible).load(cr.retailer.id);
  }

  @FieldResolver(() => Territory, { nullable: true, description: 'Null when it has none or the caller does not see it (retailer users).' })
  territory(@Root() cr: CompanyRetailerRoot, @Ctx() ctx: Context) {
    if (!cr.territory) return null;
    const embeds = companyRetailerEmbeds(cr);
    return embeds ? embeds.territory : visibleLoader(ctx, territoryVisible).load(cr.territory.id);
  }

  @FieldResolver(() => Location, { nullable: true, description: "The retailer's address as the company knows it; null when none." })
  physicalAddress(@Root() cr: CompanyRetailerRoot, @Ctx() ctx: Context) {
    const embeds = companyRetailerEmbeds(cr);
    if (embeds) return embeds.physicalAddress;
    return cr.physicalAddress ? ctx.loaders.byId(Location).load(cr.physicalAddress.id) : null;
  }

  @FieldResolver(() => Int, { description: 'Number of company retailer locations under it that the caller sees.' })
  retailerLocationsCount(@Root() cr: CompanyRetailerRoot, @Ctx() ctx: Context) {
    const embeds = companyRetailerEmbeds(cr);
    return embeds ? embeds.retailerLocationsCount : locationsCountLoader(ctx).load(cr.id);
  }
}
