import { Field, ID, InputType, Int } from 'type-graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { planNested } from '../../db/nested-write';
import { validationDetail, type ErrorDetail, type Validator } from '../../errors';
import { Hour, WEEKDAYS } from './hour.entity';
import type { RetailerLocation } from './retailer-location.entity';
import type { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';

/** PRODUCT.md section 1 hours item. Items with `id` change (or, with `_destroy`, remove) that hour; others add one. */
@InputType({ description: "One weekday's hours of a store. Without `id` it is added; with `id` that day is changed, or removed with `_destroy: true`." })
export class HourInput {
  @Field(() => ID, { nullable: true, description: 'An hours item of this store to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'Lower-case weekday, unique per location.' })
  day?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Open on this day; when true the four times are required.' })
  open?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Opening hour, 0-23 (local time).' })
  openAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Opening minute, 0-59.' })
  openAtMinute?: number | null;

  @Field(() => Int, { nullable: true, description: 'At or before the opening time means closing after midnight.' })
  closeAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Closing minute, 0-59.' })
  closeAtMinute?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this day (the store is then closed that day).' })
  _destroy?: boolean | null;
}

export interface HourValues {
  day: string;
  open: boolean;
  openAtHour?: number | null;
  openAtMinute?: number | null;
  closeAtHour?: number | null;
  closeAtMinute?: number | null;
}

const TIME_FIELDS = [
  ['openAtHour', 'open_at_hour', 23],
  ['openAtMinute', 'open_at_minute', 59],
  ['closeAtHour', 'close_at_hour', 23],
  ['closeAtMinute', 'close_at_minute', 59],
] as const;

/**
 * The rules of PRODUCT.md section 1 over a location's whole set of hours, as 422 details on
 * `<field>.<attribute>`: a weekday, each at most once; when open, hours 0-23 and minutes 0-59.
 */
export function hourErrors(hours: readonly HourValues[], field = 'retailer_location_hours'): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const add = (attr: string, code: string, message?: string) => {
    if (!details.some((d) => d.field === `${field}.${attr}` && d.code === code)) details.push(validationDetail(`${field}.${attr}`, code, message));
  };
  const seen = new Set<string>();
  for (const h of hours) {
    if (!h.day) add('day', 'blank');
    else if (!(WEEKDAYS as readonly string[]).includes(h.day)) add('day', 'invalid', 'must be a lower-case weekday');
    else if (seen.has(h.day)) add('day', 'taken');
    else seen.add(h.day);
    if (!h.open) continue;
    for (const [key, attr, max] of TIME_FIELDS) {
      const value = h[key];
      if (value === null || value === undefined) add(attr, 'blank');
      else if (!Number.isInteger(value) || value < 0 || value > max) add(attr, 'invalid', `must be between 0 and ${max}`);
    }
  }
  return details;
}

/** A close time at or before the open time means the store closes after midnight (PRODUCT.md section 1). */
export function closesNextDay(h: HourValues): boolean {
  if (!h.open) return false;
  return h.closeAtHour! * 60 + h.closeAtMinute! <= h.openAtHour! * 60 + h.openAtMinute!;
}

export type HoursOwner = { retailerLocation: RetailerLocation } | { companyRetailerLocation: CompanyRetailerLocation };

/** Applies hours items to the hours of `owner` (a retailer location, or a CRL without one) and validates the result. */
export async function writeHours(
  em: EntityManager,
  owner: HoursOwner,
  items: readonly HourInput[],
  v: Validator,
  options: { ownerIsNew: boolean; field?: string },
): Promise<void> {
  const field = options.field ?? 'retailer_location_hours';
  const current: Hour[] = options.ownerIsNew ? [] : await em.find(Hour, owner as any);
  const removed = new Set<Hour>();
  for (const step of planNested(items, current)) {
    if (step.op === 'unknown') v.add(`${field}.id`, 'invalid', 'is not the id of an hour of this location');
    else if (step.op === 'remove') removed.add(step.entity);
    else if (step.op === 'update') assignHour(step.entity, step.item);
    else {
      const hour = em.create(Hour, { ...owner, day: '' as any });
      assignHour(hour, step.item);
      current.push(hour);
    }
  }
  const kept = current.filter((h) => !removed.has(h));
  const errors = hourErrors(kept, field);
  errors.forEach((d) => v.details.push(d));
  if (errors.length) return;
  // Deleted now rather than at flush (which inserts first), so a removed day can be added again in one request.
  if (removed.size) await em.nativeDelete(Hour, { id: { $in: [...removed].map((h) => h.id) } });
  for (const hour of kept) {
    if (!hour.open) Object.assign(hour, { openAtHour: null, openAtMinute: null, closeAtHour: null, closeAtMinute: null });
  }
}

function assignHour(hour: Hour, item: HourInput): void {
  if (item.day !== undefined) hour.day = (item.day ?? '').trim().toLowerCase() as Hour['day'];
  if (item.open !== undefined) hour.open = item.open === true;
  for (const [key] of TIME_FIELDS) if (item[key] !== undefined) hour[key] = item[key];
}

/** Hours sorted Monday first. */
export function byWeekday(hours: Hour[]): Hour[] {
  return [...hours].sort((a, b) => WEEKDAYS.indexOf(a.day) - WEEKDAYS.indexOf(b.day));
}
