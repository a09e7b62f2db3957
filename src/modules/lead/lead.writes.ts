import type { EntityManager } from '@mikro-orm/postgresql';
import type { Validator } from '../../errors';
import { groupNested, planNested, type NestedItem, type NestedPlan } from '../../db/nested-write';
import type { AddressQuery, Coordinates, Geocoder } from '../../geo/geocoder';
import { logger } from '../../logger';
import { isUuid } from '../../search/list';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Location } from '../contact/location.entity';
import type { Caller } from '../../auth/caller';
import { creatorTerritory } from './lead.policy';
import { routeNewLead, type LeadAddress } from '../routing/routing.service';
import type { RoutingSettings } from '../routing/routing.types';
import type { Lead } from './lead.entity';
import { LeadActivity, type LeadActivityType } from './lead-activity.entity';
import type { LeadActivityItemInput, LeadEmailInput, LeadLocationInput, LeadPhoneNumberInput } from './lead.input';
import {
  checkActivityData,
  checkActivityType,
  checkCountry,
  checkEmail,
  checkPhone,
  foldMessageAndBody,
  isBlank,
  optionalString,
  type ParsedPhone,
} from './lead.rules';

/**
 * A lead write's nested collections (SPEC 2.2, 4.3): the sent items checked against the stored ones
 * (`planNested`), with their 422s on the shared Validator, and applied to the unit of work.
 */

const LOCATION_KEYS = ['addressName', 'streetLineOne', 'streetLineTwo', 'postalCode', 'city', 'province', 'country'] as const;
const ADDRESS_KEYS = ['streetLineOne', 'streetLineTwo', 'postalCode', 'city', 'province', 'country'] as const;
export type LocationFields = Partial<Record<(typeof LOCATION_KEYS)[number], string | null>>;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export interface NewActivity {
  type: LeadActivityType;
  data: Record<string, unknown> | null;
  sourceId?: string | null;
  sourceType?: string | null;
}

/** Newest first; `seq` (insertion order) breaks ties between activities of one write. */
export const TIMELINE_ORDER: Record<string, 'asc' | 'desc'> = { createdAt: 'desc', seq: 'desc' };
/** Emails and phone numbers: oldest first, those of one write in the order they were sent. */
export const INSERTION_ORDER: Record<string, 'asc' | 'desc'> = { createdAt: 'asc', seq: 'asc' };

/**
 * Lead routing (src/modules/routing): the store the company's rules choose for a company lead created
 * without an assignee, with the `Assignment` activity naming the rule and the distance in miles. The
 * lead's territory is its creator's when a territory manager creates it.
 */
export async function routedAssignment(
  tx: EntityManager,
  companyId: string,
  address: LeadAddress | null,
  creator: Caller,
  settings?: RoutingSettings,
): Promise<{ assigneeId: string; activity: NewActivity } | null> {
  const territoryId = creatorTerritory(creator);
  const choice = await routeNewLead(tx, companyId, address, territoryId, settings);
  if (!choice) return null;
  return {
    assigneeId: choice.crlId,
    activity: { type: 'LeadActivity::Assignment', data: { from_id: null, to_id: choice.crlId, rule: choice.rule, distance_miles: choice.distanceMiles } },
  };
}

export function addActivity(tx: EntityManager, lead: Lead, a: NewActivity): LeadActivity {
  return tx.create(LeadActivity, {
    lead,
    type: a.type,
    data: a.data,
    sourceId: a.sourceId ?? null,
    sourceType: a.sourceType ?? null,
  });
}

export function createPhone(tx: EntityManager, lead: Lead, phone: ParsedPhone): PhoneNumber {
  return tx.create(PhoneNumber, { phoneNumber: phone.e164, countryCode: phone.country, lead });
}

export function applyNested<E extends object, I>(tx: EntityManager, plan: NestedPlan<E, I>, update: (entity: E, item: I) => void): void {
  for (const { entity, item } of plan.updates) update(entity, item);
  for (const entity of plan.removes) tx.remove(entity);
}

/**
 * The nested-write plan of a lead collection (`planNested`); an `id` that is not one of the lead's is
 * 422 on `<field>.id`.
 */
function partition<E extends { id: string }, I extends NestedItem>(
  items: I[] | null | undefined,
  stored: E[],
  replace: boolean,
  field: string,
  v: Validator,
): NestedPlan<E, I> {
  const plan = groupNested(planNested(items, stored, { replace }));
  for (const _ of plan.unknown) v.add(`${field}.id`, 'invalid', `is not one of this lead's ${field.replace(/_/g, ' ')}`);
  return plan;
}

type EmailItem = LeadEmailInput & { normalized?: string };

/** Emails after the write: the plan, the new addresses to create and every address the lead keeps. */
export function planEmails(items: LeadEmailInput[] | null | undefined, stored: Email[], replace: boolean, v: Validator) {
  const plan = partition<Email, EmailItem>(items, stored, replace, 'emails', v);
  const kept = new Set<string>();
  for (const u of plan.updates) {
    if (u.item.email !== undefined) u.item.normalized = checkEmail(u.item.email, 'emails.email', v);
    kept.add(u.item.normalized ?? u.entity.email);
  }
  const removed = new Set(plan.removes);
  for (const e of stored) if (!removed.has(e) && !plan.updates.some((u) => u.entity === e)) kept.add(e.email);
  const created: string[] = [];
  for (const item of plan.creates) {
    if (isBlank(item.email)) continue; // an empty row of a form
    const email = checkEmail(item.email, 'emails.email', v);
    if (email && !kept.has(email)) {
      kept.add(email);
      created.push(email);
    }
  }
  return { plan, created, values: [...kept] };
}

type PhoneItem = LeadPhoneNumberInput & { parsed?: ParsedPhone };

/** Phone numbers after the write, parsed by their country (default US) and stored in E.164. */
export function planPhones(items: LeadPhoneNumberInput[] | null | undefined, stored: PhoneNumber[], replace: boolean, v: Validator) {
  const plan = partition<PhoneNumber, PhoneItem>(items, stored, replace, 'phone_numbers', v);
  const kept = new Map<string, ParsedPhone>();
  for (const u of plan.updates) {
    const { item, entity } = u;
    if (item.phoneNumber !== undefined || item.countryCode !== undefined) {
      const country = item.countryCode !== undefined ? checkCountry(item.countryCode, 'phone_numbers.country_code', v) : entity.countryCode;
      item.parsed = checkPhone(item.phoneNumber !== undefined ? item.phoneNumber : entity.phoneNumber, country, 'phone_numbers.', v);
    }
    const value = item.parsed ?? { e164: entity.phoneNumber, country: entity.countryCode };
    kept.set(value.e164, value);
  }
  const removed = new Set(plan.removes);
  for (const p of stored) {
    if (!removed.has(p) && !plan.updates.some((u) => u.entity === p)) kept.set(p.phoneNumber, { e164: p.phoneNumber, country: p.countryCode });
  }
  const created: ParsedPhone[] = [];
  for (const item of plan.creates) {
    if (isBlank(item.phoneNumber)) continue;
    const country = checkCountry(item.countryCode, 'phone_numbers.country_code', v);
    const phone = checkPhone(item.phoneNumber, country, 'phone_numbers.', v);
    if (phone && !kept.has(phone.e164)) {
      kept.set(phone.e164, phone);
      created.push(phone);
    }
  }
  return { plan, created, values: [...kept.values()] };
}

export type LocationPlan = { kind: 'keep' } | { kind: 'remove' } | { kind: 'set'; fields: LocationFields };

/**
 * `location`: absent keeps it (PUT: removes it); null or `_destroy: true` removes it; an object sets
 * the given fields (PUT, or a new location: every field, absent ones null).
 */
export function planLocation(input: LeadLocationInput | null | undefined, stored: Location | null, replace: boolean, v: Validator): LocationPlan {
  if (input === undefined) return replace ? { kind: 'remove' } : { kind: 'keep' };
  if (input === null || input._destroy) return { kind: 'remove' };
  if (input.id && input.id !== stored?.id) v.add('location.id', 'invalid', "is not this lead's location");
  const fields: LocationFields = {};
  for (const key of LOCATION_KEYS) {
    if (input[key] === undefined && stored && !replace) continue;
    const value = optionalString(input[key] ?? null, `location.${snake(key)}`, v);
    if (value !== undefined) fields[key] = value;
  }
  // An all-blank form section creates nothing.
  if (!stored && LOCATION_KEYS.every((k) => fields[k] === null || fields[k] === undefined)) return { kind: 'keep' };
  return { kind: 'set', fields };
}

export function locationData(fields: LocationFields, coordinates: Coordinates | null) {
  return {
    ...fields,
    latitude: coordinates?.latitude ?? null,
    longitude: coordinates?.longitude ?? null,
    coordinatesSource: coordinates ? ('geocoder' as const) : null,
  };
}

export function addressOf(l: Location): string {
  return JSON.stringify(ADDRESS_KEYS.map((k) => l[k] ?? null));
}

/** New nested activities of a create: type and data rules of SPEC 2.2 and 4.3. */
export function planNewActivities(items: LeadActivityItemInput[] | null | undefined, v: Validator): NewActivity[] {
  return (items ?? []).filter((i) => !i.id && !i._destroy).map((item) => newActivity(item, v));
}

function newActivity(item: LeadActivityItemInput, v: Validator): NewActivity {
  const type = checkActivityType(item.type, v);
  const data = foldMessageAndBody(item.data as Record<string, unknown> | null | undefined, item.message, item.body);
  checkActivityData(type, data, v);
  const sourceType = optionalString(item.sourceType, 'source_type', v);
  return { type: type ?? 'LeadActivity::Note', data: (data ?? null) as Record<string, unknown> | null, sourceId: item.sourceId ?? null, sourceType: sourceType ?? null };
}

type ActivityItem = LeadActivityItemInput & { changes?: Partial<LeadActivity>; activity?: NewActivity };

/** Nested activities of an update: the lead's own (by `id`) change or go; the others are appended. */
export function planActivities(items: LeadActivityItemInput[] | null | undefined, stored: LeadActivity[], v: Validator) {
  const plan = partition<LeadActivity, ActivityItem>(items, stored, false, 'lead_activities', v);
  for (const u of plan.updates) {
    const { item, entity } = u;
    const changes: Partial<LeadActivity> = {};
    const type = item.type !== undefined ? checkActivityType(item.type, v) : entity.type;
    if (type) changes.type = type;
    const dataSent = item.data !== undefined || item.message !== undefined || item.body !== undefined;
    const data = dataSent ? foldMessageAndBody((item.data !== undefined ? item.data : entity.data) as Record<string, unknown> | null, item.message, item.body) : entity.data;
    if (dataSent || item.type !== undefined) checkActivityData(type, data, v);
    if (dataSent) changes.data = (data ?? null) as Record<string, unknown> | null;
    if (item.sourceId !== undefined) changes.sourceId = item.sourceId;
    if (item.sourceType !== undefined) {
      const sourceType = optionalString(item.sourceType, 'source_type', v);
      if (sourceType !== undefined) changes.sourceType = sourceType;
    }
    item.changes = changes;
  }
  const creates = plan.creates.map((item) => ({ ...item, activity: newActivity(item, v) }));
  return { updates: plan.updates, removes: plan.removes, unknown: plan.unknown, creates } as NestedPlan<LeadActivity, ActivityItem> & {
    creates: Array<ActivityItem & { activity: NewActivity }>;
  };
}

/** What an update checks its items against: the lead's emails, phone numbers and location, and the activities its items name. */
export interface StoredChildren {
  emails: Email[];
  phones: PhoneNumber[];
  location: Location | null;
  activities: LeadActivity[];
}

export async function storedChildren(tx: EntityManager, lead: Lead, items: LeadActivityItemInput[] | null | undefined): Promise<StoredChildren> {
  const activityIds = (items ?? []).map((a) => a.id).filter(isUuid);
  return {
    emails: await tx.find(Email, { lead: lead.id }, { orderBy: INSERTION_ORDER }),
    phones: await tx.find(PhoneNumber, { lead: lead.id }, { orderBy: INSERTION_ORDER }),
    location: lead.location ? await tx.findOne(Location, { id: lead.location.id }, { refresh: true }) : null,
    activities: activityIds.length ? await tx.find(LeadActivity, { id: { $in: activityIds }, lead: lead.id }) : [],
  };
}

/**
 * Applies the plans of an update to the lead, in the order its rows are written: emails, phone
 * numbers, the location (`place` geocodes a new or moved address), the `automatic` activities (status
 * change, assignment), then the sent activities.
 */
export async function applyChildren(
  tx: EntityManager,
  lead: Lead,
  stored: StoredChildren,
  plans: {
    emails: ReturnType<typeof planEmails>;
    phones: ReturnType<typeof planPhones>;
    location: LocationPlan;
    activities: ReturnType<typeof planActivities>;
  },
  automatic: NewActivity[],
  place: (location: Location) => Promise<void>,
): Promise<void> {
  const { emails, phones, location, activities } = plans;
  applyNested(tx, emails.plan, (entity, item) => {
    if (item.email !== undefined) entity.email = item.normalized!;
  });
  for (const email of emails.created) tx.create(Email, { email, lead });
  applyNested(tx, phones.plan, (entity, item) => {
    if (item.parsed) {
      entity.phoneNumber = item.parsed.e164;
      entity.countryCode = item.parsed.country;
    }
  });
  for (const phone of phones.created) createPhone(tx, lead, phone);

  if (location.kind === 'remove' && stored.location) {
    lead.location = null;
    tx.remove(stored.location);
  } else if (location.kind === 'set') {
    const target = stored.location ?? tx.create(Location, {});
    const before = addressOf(target);
    Object.assign(target, location.fields);
    // Geocoded inside the transaction: the address to place is the merged one read under the row lock.
    if (!stored.location || before !== addressOf(target)) await place(target);
    lead.location = target;
  }

  for (const a of automatic) addActivity(tx, lead, a);
  applyNested(tx, activities, (entity, item) => {
    Object.assign(entity, item.changes);
  });
  for (const a of activities.creates) addActivity(tx, lead, a.activity);
}

/** Coordinates for an address; a geocoder failure leaves them null and never fails the write. */
export async function geocodeAddress(geocoder: Geocoder, address: AddressQuery): Promise<Coordinates | null> {
  if (ADDRESS_KEYS.every((k) => isBlank(address[k]))) return null;
  try {
    return await geocoder.geocode(address);
  } catch (err) {
    logger.warn({ err }, 'geocoding failed; the location keeps null coordinates');
    return null;
  }
}

/** A written location's coordinates from the geocoder, unless they were sent (`explicit`). */
export async function placeLocation(geocoder: Geocoder, location: Location): Promise<void> {
  if (location.coordinatesSource === 'explicit') return;
  const coordinates = await geocodeAddress(geocoder, location);
  location.latitude = coordinates?.latitude ?? null;
  location.longitude = coordinates?.longitude ?? null;
  location.coordinatesSource = coordinates ? 'geocoder' : null;
}
