import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Product } from './product.entity';

@ObjectType({ description: 'An image of a product, shown in store locator results. Seen by whoever sees the product.' })
@Entity({ tableName: 'product_images' })
export class ProductImage extends BaseEntity {
  @Index()
  @ManyToOne(() => Product, { deleteRule: 'cascade' })
  product!: Product;

  @Field(() => String, { description: 'The full-size image (http or https URL).' })
  @Property({ type: 'string' })
  url!: string;

  @Field(() => String, { nullable: true, description: 'A small version for lists; null when none.' })
  @Property({ type: 'string', nullable: true })
  thumbnailUrl?: string | null;

  @Field(() => Int, { description: "Order among the product's images, from 0." })
  @Property({ type: 'integer', default: 0 })
  position: number & Opt = 0;

  @Field(() => ID, { description: 'The product it shows.' })
  get productId(): string & Opt {
    return this.product.id;
  }
}
