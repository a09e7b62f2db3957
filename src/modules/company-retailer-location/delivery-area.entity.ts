import { Entity, Index, ManyToOne, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { CompanyRetailerLocation } from './company-retailer-location.entity';

@ObjectType()
@Entity({ tableName: 'delivery_areas' })
export class DeliveryArea extends BaseEntity {
  @Index()
  @ManyToOne(() => CompanyRetailerLocation, { deleteRule: 'cascade' })
  companyRetailerLocation!: CompanyRetailerLocation;

  @Field(() => String)
  @Property({ type: 'string' })
  postalCode!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  country?: string | null;
}
