import { Entity, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { CompanyRetailerLocation } from './company-retailer-location.entity';

/** One opening span of an exception day, in the store's time zone (the regular hours' four times). */
@ObjectType('HourExceptionSpan', { description: 'One opening span of a day with special hours, in the store\'s time zone.' })
export class ExceptionSpan {
  // Stored (and read) with snake_case keys, as the locator's hour rows.
  @Field(() => Int, { name: 'openAtHour', description: 'Opening hour, 0-23 (local time).' })
  open_at_hour!: number;

  @Field(() => Int, { name: 'openAtMinute', description: 'Opening minute, 0-59.' })
  open_at_minute!: number;

  @Field(() => Int, { name: 'closeAtHour', description: 'Closing hour, 0-23; at or before the opening time means closing after midnight.' })
  close_at_hour!: number;

  @Field(() => Int, { name: 'closeAtMinute', description: 'Closing minute, 0-59.' })
  close_at_minute!: number;
}

/** A span as stored (snake_case JSON, like the locator's hour rows). */
export interface StoredSpan {
  open_at_hour: number;
  open_at_minute: number;
  close_at_hour: number;
  close_at_minute: number;
}

/**
 * A dated exception to a store's weekly hours (docs/store-locator.md "Holiday and special hours"): closed,
 * or open at other hours, on every local date from `startsOn` to `endsOn` (both inclusive). Like the weekly
 * hours it belongs to the linked retailer location when there is one, else to the CRL itself.
 */
@ObjectType({ description: "A dated exception to a store's weekly hours: closed, or other hours, on each date from `startsOn` to `endsOn` (inclusive), in the store's time zone." })
@Entity({ tableName: 'hour_exceptions' })
export class HourException extends BaseEntity {
  // Indexed (partial, with starts_on) by migrations/Migration20261207000100_hour_exceptions.ts.
  @ManyToOne(() => RetailerLocation, { nullable: true, deleteRule: 'cascade' })
  retailerLocation?: RetailerLocation | null;

  @ManyToOne(() => CompanyRetailerLocation, { nullable: true, deleteRule: 'cascade' })
  companyRetailerLocation?: CompanyRetailerLocation | null;

  /** `YYYY-MM-DD`, the store's local date. */
  @Field(() => String, { description: 'First date (`YYYY-MM-DD`, the store\'s local date) the exception applies to.' })
  @Property({ type: 'string', columnType: 'date' })
  startsOn!: string;

  @Field(() => String, { description: 'Last date (`YYYY-MM-DD`, inclusive); the same as `startsOn` for one day.' })
  @Property({ type: 'string', columnType: 'date' })
  endsOn!: string;

  @Field(() => Boolean, { description: 'Closed all day; when false the store opens at `hours` instead of its weekly hours.' })
  @Property({ type: 'boolean', default: true })
  closed: boolean & Opt = true;

  @Field(() => [ExceptionSpan], { description: 'The opening spans, earliest first, when not closed; empty when closed.' })
  @Property({ type: 'json', default: '[]' })
  hours: StoredSpan[] & Opt = [];

  @Field(() => String, { nullable: true, description: 'Shown to visitors (`Public holiday`, `Christmas Eve`).' })
  @Property({ type: 'string', length: 100, nullable: true })
  label?: string | null;
}
