import { Field, ID, InputType, Int } from 'type-graphql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { planNested } from '../../db/nested-write';
import { invalid, validationDetail, type ErrorDetail, type Validator } from '../../errors';
import { dayNumber } from '../store-locator/store-locator.hours';
import type { RetailerLocation } from '../retailer-location/retailer-location.entity';
import type { CompanyRetailerLocation } from './company-retailer-location.entity';
import { HourException, type StoredSpan } from './hour-exception.entity';

/** Exceptions one store may hold (a year of single days); each show, list and locator result reads them. */
export const MAX_HOUR_EXCEPTIONS = 366;
/** Dates one exception may cover: a year (leap years included). */
export const MAX_EXCEPTION_DAYS = 366;
/** Opening spans of one exception day (a day with a lunch break is two). */
export const MAX_EXCEPTION_SPANS = 4;
export const MAX_EXCEPTION_LABEL = 100;
/** Dates outside these years are refused: they are typing mistakes, not holidays. */
const FIRST_YEAR = 2000;
const LAST_YEAR = 2199;

@InputType({ description: 'One opening span of a day with special hours (local time).' })
export class HourExceptionSpanInput {
  @Field(() => Int, { nullable: true, description: 'Opening hour, 0-23.' })
  openAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Opening minute, 0-59.' })
  openAtMinute?: number | null;

  @Field(() => Int, { nullable: true, description: 'Closing hour, 0-23; at or before the opening time means closing after midnight.' })
  closeAtHour?: number | null;

  @Field(() => Int, { nullable: true, description: 'Closing minute, 0-59.' })
  closeAtMinute?: number | null;
}

@InputType({ description: "A dated exception to a store's weekly hours. Without `id` it is added; with `id` that exception is changed, or removed with `_destroy: true`." })
export class HourExceptionInput {
  @Field(() => ID, { nullable: true, description: 'An exception of this store to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'First date, `YYYY-MM-DD` (the store\'s local date); required for a new exception.' })
  startsOn?: string | null;

  @Field(() => String, { nullable: true, description: 'Last date, `YYYY-MM-DD`, inclusive; blank: the same as `startsOn`. At most a year after it.' })
  endsOn?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Closed all day (the default for a new exception); false opens at `hours`.' })
  closed?: boolean | null;

  @Field(() => [HourExceptionSpanInput], { nullable: true, description: 'The opening spans when not closed (1 to 4).' })
  hours?: HourExceptionSpanInput[] | null;

  @Field(() => String, { nullable: true, description: 'Shown to visitors, at most 100 characters (`Public holiday`).' })
  label?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this exception.' })
  _destroy?: boolean | null;
}

/** An exception's values as validated (entity, import row or input alike). */
export interface HourExceptionValues {
  startsOn: string;
  endsOn: string;
  closed: boolean;
  hours: ReadonlyArray<Partial<StoredSpan>>;
  label?: string | null;
}

const SPAN_FIELDS = [
  ['open_at_hour', 23],
  ['open_at_minute', 59],
  ['close_at_hour', 23],
  ['close_at_minute', 59],
] as const;

function inYears(date: string): boolean {
  const year = Number(date.slice(0, 4));
  return dayNumber(date) !== null && year >= FIRST_YEAR && year <= LAST_YEAR;
}

/**
 * The rules of a store's whole set of exceptions, as 422 details on `<field>.<attribute>`: valid dates
 * (`YYYY-MM-DD`, years 2000-2199), `ends_on` not before `starts_on` and at most a year of dates, when not
 * closed 1 to 4 spans with hours 0-23 and minutes 0-59, a label of at most 100 characters, at most 366
 * exceptions, and no two exceptions sharing a date (`overlap`, naming both ranges).
 */
export function hourExceptionErrors(items: readonly HourExceptionValues[], field = 'hour_exceptions'): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const add = (attr: string, code: string, message?: string) => {
    const name = attr ? `${field}.${attr}` : field;
    if (!details.some((d) => d.field === name && d.code === code)) details.push(validationDetail(name, code, message));
  };
  if (items.length > MAX_HOUR_EXCEPTIONS) add('', 'invalid', `must have at most ${MAX_HOUR_EXCEPTIONS} items per location`);
  const ranges: Array<{ from: string; to: string }> = [];
  for (const e of items) {
    let datesOk = true;
    if (!e.startsOn) (add('starts_on', 'blank'), (datesOk = false));
    else if (!inYears(e.startsOn)) (add('starts_on', 'invalid', `must be a date (YYYY-MM-DD) in the years ${FIRST_YEAR} to ${LAST_YEAR}`), (datesOk = false));
    if (!e.endsOn) datesOk = false;
    else if (!inYears(e.endsOn)) (add('ends_on', 'invalid', `must be a date (YYYY-MM-DD) in the years ${FIRST_YEAR} to ${LAST_YEAR}`), (datesOk = false));
    if (datesOk) {
      const days = dayNumber(e.endsOn)! - dayNumber(e.startsOn)! + 1;
      if (days < 1) (add('ends_on', 'invalid', 'must be on or after starts_on'), (datesOk = false));
      else if (days > MAX_EXCEPTION_DAYS) (add('ends_on', 'invalid', `must be at most ${MAX_EXCEPTION_DAYS} days from starts_on, both included`), (datesOk = false));
    }
    if (datesOk) ranges.push({ from: e.startsOn, to: e.endsOn });
    if (e.label != null && e.label.length > MAX_EXCEPTION_LABEL) add('label', 'invalid', `must be at most ${MAX_EXCEPTION_LABEL} characters`);
    else if (e.label?.includes('\u0000')) add('label', 'invalid', 'must not contain a NUL character');
    if (e.closed) continue;
    if (e.hours.length === 0) add('hours', 'blank', "can't be blank when closed is false");
    else if (e.hours.length > MAX_EXCEPTION_SPANS) add('hours', 'invalid', `must have at most ${MAX_EXCEPTION_SPANS} items`);
    for (const span of e.hours) {
      for (const [attr, max] of SPAN_FIELDS) {
        const value = span[attr];
        if (value === null || value === undefined) add(`hours.${attr}`, 'blank');
        else if (!Number.isInteger(value) || value < 0 || value > max) add(`hours.${attr}`, 'invalid', `must be between 0 and ${max}`);
      }
    }
  }
  ranges.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  for (let i = 1; i < ranges.length; i++) {
    const [a, b] = [ranges[i - 1], ranges[i]];
    if (b.from <= a.to) {
      add('starts_on', 'overlap', `must not share a date with another exception (${a.from} to ${a.to} and ${b.from} to ${b.to})`);
      break;
    }
  }
  return details;
}

export type HourExceptionOwner = { retailerLocation: RetailerLocation } | { companyRetailerLocation: CompanyRetailerLocation };

/**
 * Applies exception items to the exceptions of `owner` (the retailer location, or a CRL without one, as
 * for weekly hours) and validates the resulting set.
 */
export async function writeHourExceptions(
  em: EntityManager,
  owner: HourExceptionOwner,
  items: readonly HourExceptionInput[],
  v: Validator,
  options: { ownerIsNew: boolean; field?: string },
): Promise<void> {
  const field = options.field ?? 'hour_exceptions';
  const current: HourException[] = options.ownerIsNew ? [] : await em.find(HourException, owner as any);
  const removed = new Set<HourException>();
  for (const step of planNested(items, current)) {
    if (step.op === 'unknown') v.add(`${field}.id`, 'invalid', 'is not the id of an hour exception of this location');
    else if (step.op === 'remove') removed.add(step.entity);
    else if (step.op === 'update') assignException(step.entity, step.item);
    else {
      const exception = em.create(HourException, { ...owner, startsOn: '', endsOn: '' } as any);
      assignException(exception, step.item);
      current.push(exception);
    }
  }
  const kept = current.filter((e) => !removed.has(e));
  const errors = hourExceptionErrors(kept, field);
  errors.forEach((d) => v.details.push(d));
  if (errors.length) return;
  // Deleted now rather than at flush (which inserts first), so a removed range can be added again in one request.
  if (removed.size) await em.nativeDelete(HourException, { id: { $in: [...removed].map((e) => e.id) } });
  for (const e of kept) if (e.closed) e.hours = [];
}

function assignException(e: HourException, item: HourExceptionInput): void {
  if (item.startsOn !== undefined) e.startsOn = (item.startsOn ?? '').trim();
  if (item.endsOn !== undefined || item.startsOn !== undefined) {
    const ends = item.endsOn !== undefined ? (item.endsOn ?? '').trim() : e.endsOn;
    e.endsOn = ends || e.startsOn;
  }
  if (item.closed !== undefined) e.closed = item.closed !== false;
  if (item.hours !== undefined) {
    e.hours = (item.hours ?? []).map((s) => ({
      open_at_hour: s.openAtHour as number,
      open_at_minute: s.openAtMinute as number,
      close_at_hour: s.closeAtHour as number,
      close_at_minute: s.closeAtMinute as number,
    }));
    if (item.closed === undefined && e.hours.length) e.closed = false;
  }
  if (item.label !== undefined) e.label = item.label?.trim() || null;
}

/** Exceptions sorted by date. */
export function byDate(exceptions: HourException[]): HourException[] {
  return [...exceptions].sort((a, b) => (a.startsOn < b.startsOn ? -1 : a.startsOn > b.startsOn ? 1 : 0));
}

/**
 * Runs a write, answering the overlap a concurrent write let through (the table's exclusion constraint,
 * SQLSTATE 23P01) as the 422 the service gives for one it sees.
 */
export async function overlapRefused<T>(write: () => Promise<T>, field = 'hour_exceptions'): Promise<T> {
  try {
    return await write();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === '23P01' && String((e as { constraint?: string }).constraint ?? (e as Error).message).includes('hour_exceptions')) {
      throw invalid([validationDetail(`${field}.starts_on`, 'overlap', 'must not share a date with another exception')]);
    }
    throw e;
  }
}
