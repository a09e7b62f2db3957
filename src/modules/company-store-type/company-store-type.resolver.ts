import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../auth/visibility';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { CompanyStoreType } from './company-store-type.entity';
import { CompanyStoreTypeInput } from './company-store-type.input';
import { companyStoreTypeService, companyStoreTypeSearch } from './company-store-type.service';
import { listInputs } from '../../graphql/list-args';

const CompanyStoreTypeLists = listInputs(companyStoreTypeSearch, 'CompanyStoreType');

export const CompanyStoreTypePage = PageType(CompanyStoreType, 'CompanyStoreTypePage');
export const CompanyStoreTypeConnection = ConnectionType(CompanyStoreType, 'CompanyStoreType');

@Resolver(() => CompanyStoreType)
export class CompanyStoreTypeResolver {
  @Query(() => CompanyStoreTypePage, { description: "The store types of the caller's company (all of them for the platform operator)." })
  companyStoreTypes(@Args(() => CompanyStoreTypeLists.ListArgs) args: ListArgs, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).list(args);
  }

  @Query(() => CompanyStoreTypeConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  companyStoreTypesConnection(@Args(() => CompanyStoreTypeLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).connection(filter, paging);
  }

  @Query(() => CompanyStoreType)
  companyStoreType(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).get(id);
  }

  @Mutation(() => CompanyStoreType, { description: 'Platform operator, or a company admin for its company.' })
  createCompanyStoreType(@Arg('input', () => CompanyStoreTypeInput) input: CompanyStoreTypeInput, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).create(input);
  }

  @Mutation(() => CompanyStoreType, { description: 'Platform operator, or a company admin for its company.' })
  updateCompanyStoreType(@Arg('id', () => ID) id: string, @Arg('input', () => CompanyStoreTypeInput) input: CompanyStoreTypeInput, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteCompanyStoreType(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    await companyStoreTypeService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: CompanyStoreType, @Ctx() ctx: Context) {
    return visibleLoader(ctx, 'Company').load(record.company.id);
  }
}
