import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Coordinates } from '../../geo/geocoder';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Email } from '../contact/email.entity';
import { Location } from '../contact/location.entity';
import { recordLeadEvents } from '../lead-events/lead-event.repository';
import type { LeadAddress } from '../routing/routing.service';
import { Lead } from './lead.entity';
import { contactValues } from './lead.repository';
import type { LeadMerge } from './lead.types';
import { isBlank, type ParsedPhone } from './lead.rules';
import { addActivity, createPhone, locationData, type LocationPlan, type NewActivity } from './lead.writes';

/** A quote request, validated: what it would create, and so what it may add to a duplicate. */
export interface Submission {
  name: string;
  emails: string[];
  phones: ParsedPhone[];
  location: LocationPlan;
  coordinates: Coordinates | null;
  sourceId: string | null;
  sourceType: string | null;
  /** The assignee it asked for, if any. */
  assignee: string | null | undefined;
  activities: NewActivity[];
}

/** How a merge routes a company lead left unassigned (null: it does not). */
export type Route = ((address: LeadAddress | null) => Promise<{ assigneeId: string; activity: NewActivity } | null>) | null;

/**
 * PRODUCT.md section 5: a submission merges into its duplicate `id` (row-locked by the duplicate
 * search). It adds the emails and phone numbers the lead lacks and its activities; it fills the name,
 * the location and the source only where the lead has none; an assignee it asks for replaces the
 * lead's (an `Assignment` activity); a company lead left unassigned is routed (`route`). A `Note`
 * saying what it added heads the timeline.
 */
export async function mergeSubmission(tx: EntityManager, id: string, s: Submission, route: Route): Promise<LeadMerge> {
  const [merge] = await mergeMany(tx, [{ id, submission: s }], route);
  return merge;
}

/**
 * `mergeSubmission` for several leads at once (a batch's merges), each of `items` into a different lead:
 * the leads with their locations read in one statement and their emails and phone numbers in another,
 * every lead's writes in one flush and their `lead.merged` events in one statement, whatever the number
 * of items. Only routing an unassigned lead costs statements of its own.
 */
export async function mergeMany(tx: EntityManager, items: ReadonlyArray<{ id: string; submission: Submission }>, route: Route): Promise<LeadMerge[]> {
  const ids = items.map((item) => item.id);
  if (new Set(ids).size !== ids.length) throw new Error('mergeMany: one merge a lead (a second one reads what the first wrote)');
  const leads = new Map((await tx.find(Lead, { id: { $in: ids } }, { refresh: true, populate: ['location'] })).map((lead) => [lead.id, lead]));
  // The values only, not entities: the unit of work would hydrate them and compare them at the flush.
  const held = new Map((await contactValues(tx, ids)).map((c) => [c.id, { emails: new Set(c.emails), phones: new Set(c.phones) }]));

  const out: LeadMerge[] = [];
  for (const { id, submission } of items) {
    const lead = leads.get(id);
    if (!lead) throw new Error(`mergeMany: lead ${id} not found`);
    out.push(await applySubmission(tx, lead, held.get(id)!, submission, route));
  }
  await tx.flush();
  await recordLeadEvents(tx, 'lead.merged', ids);
  return out;
}

/** One submission's merge into `lead` (which holds `have`), made on the unit of work. */
async function applySubmission(
  tx: EntityManager,
  lead: Lead,
  have: { emails: ReadonlySet<string>; phones: ReadonlySet<string> },
  s: Submission,
  route: Route,
): Promise<LeadMerge> {
  const phoneValues = s.phones.map((p) => p.e164);
  const merge: LeadMerge = {
    emailsAdded: s.emails.filter((email) => !have.emails.has(email)),
    phoneNumbersAdded: phoneValues.filter((phone) => !have.phones.has(phone)),
    nameFilled: isBlank(lead.name),
    locationFilled: !lead.location && s.location.kind === 'set',
    assigneeChanged: !!s.assignee && s.assignee !== lead.assigneeId,
    activitiesAdded: s.activities.length,
  };
  if (merge.nameFilled) lead.name = s.name;
  if (merge.locationFilled && s.location.kind === 'set') lead.location = tx.create(Location, locationData(s.location.fields, s.coordinates));
  if (!lead.sourceId && !lead.sourceType && (s.sourceId || s.sourceType)) {
    lead.sourceId = s.sourceId ?? null;
    lead.sourceType = s.sourceType ?? null;
  }
  for (const email of merge.emailsAdded) tx.create(Email, { email, lead });
  for (const phone of s.phones) if (merge.phoneNumbersAdded.includes(phone.e164)) createPhone(tx, lead, phone);
  if (merge.assigneeChanged) {
    addActivity(tx, lead, { type: 'LeadActivity::Assignment', data: { from_id: lead.assigneeId, to_id: s.assignee } });
    lead.assignee = tx.getReference(CompanyRetailerLocation, s.assignee!);
  }
  for (const a of s.activities) addActivity(tx, lead, a);
  if (!s.assignee && !lead.assignee && route) {
    const routed = await route(lead.location ?? null);
    if (routed) {
      lead.assignee = tx.getReference(CompanyRetailerLocation, routed.assigneeId);
      addActivity(tx, lead, routed.activity);
    }
  }
  // Last, so it heads the timeline: a person can see that this lead came back, and with what.
  addActivity(tx, lead, mergeNote(merge));
  return merge;
}

/**
 * A batch's answer rows each carry their own merge (two items may merge into one lead): `Lead.merge`
 * reads the row's first, then the request's.
 */
const mergeByRow = new WeakMap<object, LeadMerge>();
export function withMerge<T extends object>(row: T, merge: LeadMerge): T {
  mergeByRow.set(row, merge);
  return row;
}
export const mergeOf = (row: object): LeadMerge | undefined => mergeByRow.get(row);

const mergesByRequest = new WeakMap<Context, Map<string, LeadMerge>>();
/** The merges the creates of this request made, by lead id (what `Lead.merge` answers). */
export function merges(ctx: Context): Map<string, LeadMerge> {
  let map = mergesByRequest.get(ctx);
  if (!map) mergesByRequest.set(ctx, (map = new Map()));
  return map;
}

/**
 * The timeline entry of a merge: a `Note` (SPEC 2.2 has no merge type, and partners code against its
 * list) whose `data.merge` says what the create added and `data.notes` says it in words.
 */
export function mergeNote(merge: LeadMerge): NewActivity {
  const added = [
    ...merge.emailsAdded.map((e) => `email ${e}`),
    ...merge.phoneNumbersAdded.map((p) => `phone number ${p}`),
    ...(merge.nameFilled ? ['the name'] : []),
    ...(merge.locationFilled ? ['the location'] : []),
    ...(merge.activitiesAdded ? [`${merge.activitiesAdded} ${merge.activitiesAdded === 1 ? 'activity' : 'activities'}`] : []),
  ];
  return {
    type: 'LeadActivity::Note',
    data: {
      notes: `A new submission merged into this lead; it added ${added.length ? added.join(', ') : 'nothing new'}${merge.assigneeChanged ? ' and changed the assignee' : ''}.`,
      merge: {
        emails_added: merge.emailsAdded,
        phone_numbers_added: merge.phoneNumbersAdded,
        name_filled: merge.nameFilled,
        location_filled: merge.locationFilled,
        assignee_changed: merge.assigneeChanged,
        activities_added: merge.activitiesAdded,
      },
    },
  };
}
