import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { ListArgs, PageType } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { Location } from '../contact/location.entity';
import { CompanyRetailer } from './company-retailer.entity';
import { CompanyRetailerInput } from './company-retailer.input';
import { CompanyRetailerService } from './company-retailer.service';

export const CompanyRetailerPage = PageType(CompanyRetailer, 'CompanyRetailerPage');

/** Number of CRLs under each company retailer, one statement per batch. */
function locationCounts(ctx: Context) {
  return ctx.loaders.custom<string, number>('companyRetailer.locationsCount', async (ids) => {
    const rows: Array<{ id: string; n: number }> = await ctx.em
      .getConnection()
      .execute(
        'select company_retailer_id as id, count(*)::int as n from company_retailer_locations where company_retailer_id = any(array[?]::uuid[]) group by 1',
        [[...ids]],
      );
    const counts = new Map(rows.map((r) => [r.id, r.n]));
    return ids.map((id) => counts.get(id) ?? 0);
  });
}

@Resolver(() => CompanyRetailer)
export class CompanyRetailerResolver {
  @Query(() => CompanyRetailerPage, { description: 'Company retailers visible to the caller.' })
  companyRetailers(@Args(() => ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).list(args);
  }

  @Query(() => CompanyRetailer)
  companyRetailer(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).get(id);
  }

  @Mutation(() => CompanyRetailer, { description: "Joins the caller's company to a retailer." })
  createCompanyRetailer(@Arg('input', () => CompanyRetailerInput) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).create(input);
  }

  @Mutation(() => CompanyRetailer, { description: 'Changes the attributes sent.' })
  updateCompanyRetailer(@Arg('id', () => ID) id: string, @Arg('input', () => CompanyRetailerInput) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).update(id, input);
  }

  @Mutation(() => CompanyRetailer, { description: 'Replaces the writable attributes: those left out return to their defaults.' })
  replaceCompanyRetailer(@Arg('id', () => ID) id: string, @Arg('input', () => CompanyRetailerInput) input: CompanyRetailerInput, @Ctx() ctx: Context) {
    return new CompanyRetailerService(ctx).update(id, input, true);
  }

  @Mutation(() => ID, { description: 'Deletes the company retailer (refused while it has locations) and returns its id.' })
  async deleteCompanyRetailer(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await new CompanyRetailerService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company)
  company(@Root() cr: CompanyRetailer, @Ctx() ctx: Context) {
    return ctx.loaders.byId(Company).load(cr.company.id);
  }

  @FieldResolver(() => Retailer)
  retailer(@Root() cr: CompanyRetailer, @Ctx() ctx: Context) {
    return ctx.loaders.byId(Retailer).load(cr.retailer.id);
  }

  @FieldResolver(() => Territory, { nullable: true })
  territory(@Root() cr: CompanyRetailer, @Ctx() ctx: Context) {
    return cr.territory ? ctx.loaders.byId(Territory).load(cr.territory.id) : null;
  }

  @FieldResolver(() => Location, { nullable: true })
  physicalAddress(@Root() cr: CompanyRetailer, @Ctx() ctx: Context) {
    return cr.physicalAddress ? ctx.loaders.byId(Location).load(cr.physicalAddress.id) : null;
  }

  @FieldResolver(() => Int, { description: 'Number of company retailer locations under it.' })
  retailerLocationsCount(@Root() cr: CompanyRetailer, @Ctx() ctx: Context) {
    return locationCounts(ctx).load(cr.id);
  }
}
