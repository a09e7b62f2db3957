import { Entity, Property } from '@mikro-orm/core';
import { Field, Float, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

/** A postal address; owned by one lead, company retailer, retailer location or CRL. */
@ObjectType()
@Entity({ tableName: 'locations' })
export class Location extends BaseEntity {
  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  addressName?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  streetLineOne?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  streetLineTwo?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  postalCode?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  city?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  province?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  country?: string | null;

  @Field(() => Float, { nullable: true })
  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @Field(() => Float, { nullable: true })
  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  /** `explicit` when an operator set the coordinates (geocoding then leaves them alone), else `geocoder`. */
  @Property({ type: 'string', nullable: true })
  coordinatesSource?: 'explicit' | 'geocoder' | null;
}
