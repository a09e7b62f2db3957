import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Stock } from './stock.entity';
import { StockInput } from './stock.input';
import { StockService } from './stock.service';

@Resolver(() => Stock)
export class StockResolver {
  @Query(() => [Stock], { description: 'The stock records of a company retailer location the caller sees.' })
  stocks(@Arg('companyRetailerLocationId', () => ID, { description: "The company retailer location (UUID); one outside the caller's scope is NOT_FOUND." }) companyRetailerLocationId: string, @Ctx() ctx: Context) {
    return new StockService(ctx).forLocation(companyRetailerLocationId);
  }

  @Mutation(() => Stock, { description: "Creates or changes the stock of a product at a store: platform operator, or the company's admin." })
  setStock(@Arg('input', () => StockInput, { description: 'The store, the product and the two flags; an existing record of the pair is changed.' }) input: StockInput, @Ctx() ctx: Context) {
    return new StockService(ctx).set(input);
  }

  @Mutation(() => ID, { description: "Platform operator, or the company's admin." })
  async deleteStock(@Arg('id', () => ID, { description: "The stock to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new StockService(ctx).delete(id);
    return id;
  }
}

/** `CompanyRetailerLocation.stocks`, batched. */
@Resolver(() => CompanyRetailerLocation)
export class CrlStocksFieldResolver {
  @FieldResolver(() => [Stock], { description: 'Which products the store stocks or can get; one record per product that has one.' })
  stocks(@Root() crl: CompanyRetailerLocation, @Ctx() ctx: Context) {
    return ctx.loaders.manyBy(Stock, 'companyRetailerLocation').load(crl.id);
  }
}
