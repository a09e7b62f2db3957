import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Product } from './product.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';

/** Whether one store (CRL) stocks a product and whether it is available there. */
@ObjectType({ description: 'Whether one store (a company retailer location) stocks a product, and whether the product is available there; the store locator filters and shows these.' })
@Entity({ tableName: 'stocks' })
@Unique({ properties: ['companyRetailerLocation', 'product'] })
export class Stock extends BaseEntity {
  @ManyToOne(() => CompanyRetailerLocation, { deleteRule: 'cascade' })
  companyRetailerLocation!: CompanyRetailerLocation;

  @Index()
  @ManyToOne(() => Product, { deleteRule: 'cascade' })
  product!: Product;

  @Field(() => Boolean, { description: 'The store stocks the product (what the store locator\'s `stocked_product_*` filters match).' })
  @Property({ type: 'boolean', default: false })
  stocked: boolean & Opt = false;

  @Field(() => Boolean, { description: 'The product is available at the store (what the store locator\'s `available_product_*` filters match).' })
  @Property({ type: 'boolean', default: false })
  available: boolean & Opt = false;

  @Field(() => ID, { description: 'The store.' })
  get companyRetailerLocationId(): string & Opt {
    return this.companyRetailerLocation.id;
  }

  @Field(() => ID, { description: 'The product.' })
  get productId(): string & Opt {
    return this.product.id;
  }
}
