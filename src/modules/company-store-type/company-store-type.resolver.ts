import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { visibleLoader } from '../../access/visibility';
import { companyVisible } from '../company/company.search';
import { PageType, type ListArgs } from '../../graphql/common';
import { Company } from '../company/company.entity';
import { CompanyStoreType } from './company-store-type.entity';
import { CompanyStoreTypeInput } from './company-store-type.input';
import { companyStoreTypeService } from './company-store-type.service';
import { companyStoreTypeSearch } from './company-store-type.search';
import { listInputs } from '../../search/list-args';

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

  @Query(() => CompanyStoreType, { description: 'One company store type the caller sees, by id.' })
  companyStoreType(@Arg('id', () => ID, { description: "The company store type's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).get(id);
  }

  @Mutation(() => CompanyStoreType, { description: 'Platform operator, or a company admin for its company.' })
  createCompanyStoreType(@Arg('input', () => CompanyStoreTypeInput, { description: "The new company store type's attributes." }) input: CompanyStoreTypeInput, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).create(input);
  }

  @Mutation(() => CompanyStoreType, { description: 'Platform operator, or a company admin for its company.' })
  updateCompanyStoreType(@Arg('id', () => ID, { description: "The company store type to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => CompanyStoreTypeInput, { description: 'The attributes to change; those not sent keep their values.' }) input: CompanyStoreTypeInput, @Ctx() ctx: Context) {
    return companyStoreTypeService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Platform operator, or a company admin for its company.' })
  async deleteCompanyStoreType(@Arg('id', () => ID, { description: "The company store type to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await companyStoreTypeService(ctx).delete(id);
    return id;
  }

  @FieldResolver(() => Company, { nullable: true, description: 'Null when the caller does not see it.' })
  company(@Root() record: CompanyStoreType, @Ctx() ctx: Context) {
    return visibleLoader(ctx, companyVisible).load(record.company.id);
  }
}
