import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { RetailerLocation } from './retailer-location.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Opening hours of one weekday, on a retailer location or (without one) on a CRL. */
@ObjectType({ description: "A store's opening hours on one weekday, in the store's time zone." })
@Entity({ tableName: 'hours' })
export class Hour extends BaseEntity {
  @Index()
  @ManyToOne(() => RetailerLocation, { nullable: true, deleteRule: 'cascade' })
  retailerLocation?: RetailerLocation | null;

  @Index()
  @ManyToOne(() => CompanyRetailerLocation, { nullable: true, deleteRule: 'cascade' })
  companyRetailerLocation?: CompanyRetailerLocation | null;

  @Field(() => String, { description: 'Lower-case weekday name (`monday`...`sunday`).' })
  @Property({ type: 'string', length: 9 })
  day!: Weekday;

  @Field(() => Boolean, { description: 'Open on this day; when false the times are null.' })
  @Property({ type: 'boolean', default: false })
  open: boolean & Opt = false;

  @Field(() => Int, { nullable: true, description: 'Opening hour, 0-23 (local time).' })
  @Property({ type: 'smallint', nullable: true })
  openAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Opening minute, 0-59.' })
  @Property({ type: 'smallint', nullable: true })
  openAtMinute?: number | null;

  @Field(() => Int, { nullable: true, description: 'Closing hour, 0-23; at or before the opening time means closing after midnight.' })
  @Property({ type: 'smallint', nullable: true })
  closeAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Closing minute, 0-59.' })
  @Property({ type: 'smallint', nullable: true })
  closeAtMinute?: number | null;
}
