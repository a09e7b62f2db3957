import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Product } from './product.entity';
import { ProductImage } from './product-image.entity';
import { ProductImageInput } from './product-image.input';
import { ProductImageService } from './product-image.service';

@Resolver(() => ProductImage)
export class ProductImageResolver {
  @Query(() => [ProductImage], { description: 'The images of a product the caller sees, by position.' })
  productImages(@Arg('productId', () => ID, { description: "The product (UUID); one outside the caller's scope is NOT_FOUND." }) productId: string, @Ctx() ctx: Context) {
    return new ProductImageService(ctx).forProduct(productId);
  }

  @Mutation(() => ProductImage, { description: "Platform operator, or a company admin for its company's products." })
  createProductImage(@Arg('input', () => ProductImageInput, { description: "The new product image's attributes." }) input: ProductImageInput, @Ctx() ctx: Context) {
    return new ProductImageService(ctx).create(input);
  }

  @Mutation(() => ProductImage, { description: "Platform operator, or a company admin for its company's products." })
  updateProductImage(@Arg('id', () => ID, { description: "The product image to change (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Arg('input', () => ProductImageInput, { description: 'The attributes to change; those not sent keep their values.' }) input: ProductImageInput, @Ctx() ctx: Context) {
    return new ProductImageService(ctx).update(id, input);
  }

  @Mutation(() => ID, { description: "Platform operator, or a company admin for its company's products." })
  async deleteProductImage(@Arg('id', () => ID, { description: "The product image to delete (UUID); one outside the caller's scope is NOT_FOUND." }) id: string, @Ctx() ctx: Context) {
    await new ProductImageService(ctx).delete(id);
    return id;
  }
}

/** `Product.images`, batched. */
@Resolver(() => Product)
export class ProductImagesFieldResolver {
  @FieldResolver(() => [ProductImage], { description: 'Images by position.' })
  images(@Root() product: Product, @Ctx() ctx: Context) {
    return ctx.loaders.manyBy(ProductImage, 'product', { position: 'asc', createdAt: 'asc', id: 'asc' }).load(product.id);
  }
}
