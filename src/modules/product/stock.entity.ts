import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Product } from './product.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';

/** Whether one store (CRL) stocks a product and whether it is available there. */
@ObjectType()
@Entity({ tableName: 'stocks' })
@Unique({ properties: ['companyRetailerLocation', 'product'] })
export class Stock extends BaseEntity {
  @ManyToOne(() => CompanyRetailerLocation, { deleteRule: 'cascade' })
  companyRetailerLocation!: CompanyRetailerLocation;

  @Index()
  @ManyToOne(() => Product, { deleteRule: 'cascade' })
  product!: Product;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: false })
  stocked: boolean & Opt = false;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: false })
  available: boolean & Opt = false;

  @Field(() => ID)
  get companyRetailerLocationId(): string & Opt {
    return this.companyRetailerLocation.id;
  }

  @Field(() => ID)
  get productId(): string & Opt {
    return this.product.id;
  }
}
