import { Entity, Property } from '@mikro-orm/core';
import { Field, Float, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

/** A postal address; owned by one lead, company retailer, retailer location or CRL. */
@ObjectType({ description: 'A postal address with the coordinates geocoding (or an operator) gave it.' })
@Entity({ tableName: 'locations' })
export class Location extends BaseEntity {
  @Field(() => String, { nullable: true, description: 'A name for the place, e.g. "Warehouse" or a building name.' })
  @Property({ type: 'string', nullable: true })
  addressName?: string | null;

  @Field(() => String, { nullable: true, description: 'Street and number.' })
  @Property({ type: 'string', nullable: true })
  streetLineOne?: string | null;

  @Field(() => String, { nullable: true, description: 'Suite, floor or unit.' })
  @Property({ type: 'string', nullable: true })
  streetLineTwo?: string | null;

  @Field(() => String, { nullable: true, description: 'Postal or ZIP code as written locally, e.g. `97205`.' })
  @Property({ type: 'string', nullable: true })
  postalCode?: string | null;

  @Field(() => String, { nullable: true, description: 'City or town.' })
  @Property({ type: 'string', nullable: true })
  city?: string | null;

  @Field(() => String, { nullable: true, description: 'State, province or region, e.g. `OR`.' })
  @Property({ type: 'string', nullable: true })
  province?: string | null;

  @Field(() => String, { nullable: true, description: 'Country, as ISO 3166 alpha-2 (`US`) or a name the geocoder knows.' })
  @Property({ type: 'string', nullable: true })
  country?: string | null;

  @Field(() => Float, { nullable: true, description: 'Degrees north (WGS 84), from geocoding unless set explicitly; null when the address could not be placed.' })
  @Property({ type: 'double', nullable: true })
  latitude?: number | null;

  @Field(() => Float, { nullable: true, description: 'Degrees east (WGS 84), from geocoding unless set explicitly; null when the address could not be placed.' })
  @Property({ type: 'double', nullable: true })
  longitude?: number | null;

  /** `explicit` when an operator set the coordinates (geocoding then leaves them alone), else `geocoder`. */
  @Property({ type: 'string', nullable: true })
  coordinatesSource?: 'explicit' | 'geocoder' | null;
}
