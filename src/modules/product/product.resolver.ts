import { Arg, Args, Ctx, ID, Info, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { selectedFields } from '../../graphql/lookahead';
import { ConnectionArgs, ConnectionType, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Context } from '../../context';
import { PageType, type ListArgs } from '../../graphql/common';
import { Product } from './product.entity';
import { ProductInput } from './product.input';
import { ProductService } from './product.service';
import { listInputs } from '../../search/list-args';
import { productSearch } from './product.search';

const ProductLists = listInputs(productSearch, 'Product');

export const ProductPage = PageType(Product, 'ProductPage');
export const ProductConnection = ConnectionType(Product, 'Product');

@Resolver(() => Product)
export class ProductResolver {
  @Query(() => ProductPage, { description: 'Products visible to the caller.' })
  products(@Args(() => ProductLists.ListArgs) args: ListArgs, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo) {
    const asked = selectedFields(info, ['nodes']);
    return new ProductService(ctx).list(args, asked.has('createdAt') || asked.has('updatedAt'));
  }

  @Query(() => ProductConnection, { description: 'The same list by Relay cursors: `first`/`after`, `last`/`before` (keyset: every page costs what the first costs).' })
  productsConnection(@Args(() => ProductLists.FilterArgs) filter: ConnectionFilterArgs, @Args(() => ConnectionArgs) paging: ConnectionArgs, @Ctx() ctx: Context) {
    return new ProductService(ctx).connection(filter, paging);
  }

  @Query(() => Product, { description: 'One product the caller sees, by id.' })
  product(@Arg('id', () => ID, { description: "The product's id (UUID). One outside the caller's scope is NOT_FOUND, as one that does not exist." }) id: string, @Ctx() ctx: Context) {
    return new ProductService(ctx).get(id);
  }

  @Mutation(() => Product, { description: "Adds a product to a catalog: a company admin for its company (the default `companyId`), or the platform operator. `sku` is unique per company." })
  createProduct(@Arg('input', () => ProductInput, { description: "The new product's attributes." }) input: ProductInput, @Ctx() ctx: Context) {
    return new ProductService(ctx).create(input);
  }

  @Mutation(() => Product, { description: 'Changes the attributes sent: a company admin for its company, or the platform operator.' })
  updateProduct(@Arg('id', () => ID, { description: "The product to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => ProductInput, { description: 'The attributes to change; those not sent keep their values.' }) input: ProductInput, @Ctx() ctx: Context) {
    return new ProductService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: 'Deletes the product and returns its id.' })
  async deleteProduct(@Arg('id', () => ID, { description: "The product to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new ProductService(ctx).delete(id);
    return id;
  }
}
