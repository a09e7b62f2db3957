import { Field, InputType, Int } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';

/** PRODUCT.md section 1 product image. */
@InputType({ description: "A product image's writable attributes." })
export class ProductImageInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create; cannot change.' })
  productId?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL; required on create.' })
  url?: string | null;

  @Field(() => String, { nullable: true, description: 'An http(s) URL.' })
  thumbnailUrl?: string | null;

  @Field(() => Int, { nullable: true, description: 'Order among the product images, >= 0.' })
  position?: number | null;
}
