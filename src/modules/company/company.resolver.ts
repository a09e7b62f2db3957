import { Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from './company.entity';
import { CompanyInput } from './company.input';
import { CompanyService } from './company.service';
import { listInputs } from '../../search/list-args';
import { companySearch } from './company.search';

const CompanyLists = listInputs(companySearch, 'Company');

export const CompanyPage = PageType(Company, 'CompanyPage');
export const CompanyConnection = ConnectionType(Company, 'Company');

@Resolver(() => Company)
export class CompanyResolver {
  @Query(() => CompanyPage, { description: 'Companies visible to the caller.' })
  companies(@Args(() => CompanyLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return new CompanyService(ctx).list(args);
  }

  @Query(() => CompanyConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  companiesConnection(@Args(() => CompanyLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new CompanyService(ctx).connection(filter, paging);
  }

  @Query(() => Company, { description: 'One company the caller sees, by id.' })
  company(@Arg('id', () => ID, { description: "The company's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new CompanyService(ctx).get(id);
  }

  @Mutation(() => Company, { description: 'Platform operator only.' })
  createCompany(@Arg('input', () => CompanyInput, { description: "The new company's attributes." }) input: CompanyInput, @Ctx() ctx: Context) {
    return new CompanyService(ctx).create(input);
  }

  @Mutation(() => Company, { description: 'Platform operator only.' })
  updateCompany(@Arg('id', () => ID, { description: "The company to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => CompanyInput, { description: 'The attributes to change; those not sent keep their values.' }) input: CompanyInput, @Ctx() ctx: Context) {
    return new CompanyService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator only; refused while the company has company retailers.' })
  async deleteCompany(@Arg('id', () => ID, { description: "The company to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new CompanyService(ctx).delete(id);
    return id;
  }
}
