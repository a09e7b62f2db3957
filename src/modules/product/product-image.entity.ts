import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Product } from './product.entity';

@ObjectType()
@Entity({ tableName: 'product_images' })
export class ProductImage extends BaseEntity {
  @Index()
  @ManyToOne(() => Product, { deleteRule: 'cascade' })
  product!: Product;

  @Field(() => String)
  @Property({ type: 'string' })
  url!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  thumbnailUrl?: string | null;

  @Field(() => Int)
  @Property({ type: 'integer', default: 0 })
  position: number & Opt = 0;

  @Field(() => ID)
  get productId(): string & Opt {
    return this.product.id;
  }
}
