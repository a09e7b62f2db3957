import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { RetailerLocation } from './retailer-location.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Opening hours of one weekday, on a retailer location or (without one) on a CRL. */
@ObjectType()
@Entity({ tableName: 'hours' })
export class Hour extends BaseEntity {
  @Index()
  @ManyToOne(() => RetailerLocation, { nullable: true, deleteRule: 'cascade' })
  retailerLocation?: RetailerLocation | null;

  @Index()
  @ManyToOne(() => CompanyRetailerLocation, { nullable: true, deleteRule: 'cascade' })
  companyRetailerLocation?: CompanyRetailerLocation | null;

  @Field(() => String)
  @Property({ type: 'string', length: 9 })
  day!: Weekday;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: false })
  open: boolean & Opt = false;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'smallint', nullable: true })
  openAtHour?: number | null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'smallint', nullable: true })
  openAtMinute?: number | null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'smallint', nullable: true })
  closeAtHour?: number | null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'smallint', nullable: true })
  closeAtMinute?: number | null;
}
