import { Entity, Index, ManyToOne, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { CompanyRetailerLocation } from './company-retailer-location.entity';

@ObjectType({ description: "A postal code a store delivers to; the `DeliveryArea` routing rule matches a lead's postal code against it." })
@Entity({ tableName: 'delivery_areas' })
export class DeliveryArea extends BaseEntity {
  @Index()
  @ManyToOne(() => CompanyRetailerLocation, { deleteRule: 'cascade' })
  companyRetailerLocation!: CompanyRetailerLocation;

  @Field(() => String, { description: 'The postal code, as written locally (e.g. `97205`).' })
  @Property({ type: 'string' })
  postalCode!: string;

  @Field(() => String, { nullable: true, description: 'The country of the postal code (ISO 3166 alpha-2 or a name); null matches a lead in any country.' })
  @Property({ type: 'string', nullable: true })
  country?: string | null;
}
