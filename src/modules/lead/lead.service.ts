import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import type { ListArgs, Page } from '../../graphql/common';
import { forbidden, notFound, Validator } from '../../errors';
import { transactional } from '../../db/write';
import { Loaders } from '../../graphql/loaders';
import { connectionOf, connectionPage, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import { query } from '../../db/sql';
import { assigneeColumns, LEAD_COLUMNS, type LeadActivityRow, type LeadRow, leadReads, primeLeadRow, readLeadPage, withDates } from './lead.reader';
import { insertLead } from './lead.insert';
import { logger } from '../../logger';
import { findInScope, isUuid, searchPage } from '../../search/list';
import { fromClause } from '../../search/types';
import { compileScope } from '../../search/where';
import type { AddressQuery, Coordinates } from '../../geo/geocoder';
import { isCompanyRole, isRetailerRole, Role } from '../user/role';
import { routeNewLead, type LeadAddress } from '../routing/routing.service';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Location } from '../contact/location.entity';
import { Lead } from './lead.entity';
import { LeadActivity, type LeadActivityType } from './lead-activity.entity';
import type { LeadActivityItemInput, LeadEmailInput, LeadInput, LeadLocationInput, LeadPhoneNumberInput } from './lead.input';
import { assigneeSearch, leadScope, leadSearch } from './lead.search';
import { crlScope } from '../company-retailer-location/company-retailer-location.scope';
import type { LeadMerge } from './lead.types';
import { recordLeadEvent } from '../lead-events/lead-events.record';
import { leadActions } from './lead.permissions';
import { authorize, may } from '../../auth/policy';
import {
  checkActivityData,
  checkActivityType,
  checkCountry,
  checkEmail,
  checkPhone,
  duplicateKeys,
  foldMessageAndBody,
  isBlank,
  MAX_STATUS,
  optionalString,
  requiredString,
  type ParsedPhone,
} from './lead.rules';

export { ASSIGNEE_TYPE } from './lead.reader';
import { ASSIGNEE_TYPE } from './lead.reader';

const LOCATION_KEYS = ['addressName', 'streetLineOne', 'streetLineTwo', 'postalCode', 'city', 'province', 'country'] as const;
const ADDRESS_KEYS = ['streetLineOne', 'streetLineTwo', 'postalCode', 'city', 'province', 'country'] as const;
type LocationFields = Partial<Record<(typeof LOCATION_KEYS)[number], string | null>>;

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

type Owner = { company: string } | { retailer: string };

/** Where writes leave a nested collection: items to update, to create and to remove. */
interface NestedPlan<E, I> {
  updates: Array<{ entity: E; item: I }>;
  creates: I[];
  removes: E[];
}

interface NewActivity {
  type: LeadActivityType;
  data: Record<string, unknown> | null;
  sourceId?: string | null;
  sourceType?: string | null;
}

/** The assignee a request asks for: undefined (not sent), null (unassign) or a CRL id it may route to. */
type AssigneeRequest = string | null | undefined;

/**
 * Leads (SPEC 2.1, 4.3; PRODUCT.md sections 3-5): scoped reads, the quote-request create with duplicate
 * merge, PATCH/PUT with nested collections, and destroy for admins.
 */
export class LeadService {
  /** The assignee a write asked for, as the answer embeds it. */

  constructor(private readonly ctx: Context) {}

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  /**
   * A page of visible leads as plain rows: the search, then one statement for the rows and the
   * associations in `embeds` (the fields the operation selects on them).
   */
  async list(args: ListArgs, embeds: ReadonlySet<string> = new Set()): Promise<Page<LeadRow>> {
    const { ids, meta } = await searchPage(this.ctx, leadSearch, leadScope(this.caller), args);
    return { nodes: await readLeadPage(this.ctx, ids, embeds), meta };
  }

  /** The same list by Relay cursors: the keyset page, then its rows and `embeds` in one statement. */
  async connection(filter: ConnectionFilterArgs, paging: ConnectionArgs, embeds: ReadonlySet<string> = new Set()): Promise<Connection<LeadRow>> {
    const page = await connectionPage(this.ctx, leadSearch, leadScope(this.caller), filter, paging);
    return connectionOf(page, await readLeadPage(this.ctx, page.ids, embeds));
  }

  /** A visible lead as a plain row, in one statement; 404 otherwise. */
  async get(id: string): Promise<LeadRow> {
    if (!isUuid(id)) throw notFound('Lead', id);
    const cond = compileScope(leadSearch, leadScope(this.caller));
    const [row] = await query<LeadRow>(
      this.ctx.em,
      `select ${LEAD_COLUMNS} from ${fromClause(leadSearch, cond.sql)} where l.id = ? and (${cond.sql})`,
      [id, ...cond.bindings],
    );
    if (!row) throw notFound('Lead', id);
    return withDates(row);
  }

  /** The visible lead as an entity, for a write. */
  private entity(id: string): Promise<Lead> {
    return findInScope(this.ctx, leadSearch, Lead, leadScope(this.caller), id, 'Lead');
  }

  /** The whole timeline of a visible lead, newest first. */
  async timeline(id: string): Promise<LeadActivityRow[]> {
    const lead = await this.get(id);
    return leadReads(this.ctx).activities.load(lead.id);
  }

  /**
   * SPEC 4.3. The owner is the caller's company or retailer. Under a transaction-scoped advisory lock
   * on the owner and each normalized email and phone, an existing lead of that owner the caller sees
   * and sharing one of them is the duplicate the new lead merges into (PRODUCT.md section 5), so
   * concurrent creates of the same person end in one lead.
   */
  async create(input: LeadInput): Promise<LeadRow> {
    authorize(leadActions, this.caller, 'create');
    const owner = this.owner();
    const assignee = await this.assigneeRequest(input, 'company' in owner ? owner.company : null);
    const v = new Validator();
    const name = requiredString(input.name, 'name', v);
    const status = input.status === undefined || input.status === null ? undefined : requiredString(input.status, 'status', v, MAX_STATUS);
    const sourceType = optionalString(input.sourceType, 'source_type', v);
    const emails = planEmails(input.emails, [], false, v);
    const phones = planPhones(input.phoneNumbers, [], false, v);
    const location = planLocation(input.location, null, false, v);
    const activities = planNewActivities(input.leadActivities, v);
    if (input.leadActivities?.some((a) => a.id)) v.add('lead_activities.id', 'invalid', "is not one of this lead's lead activities");
    if (!emails.values.length && !phones.values.length) v.add('base', 'contact_required', 'needs at least one email or phone number');
    v.throwIfAny();

    const coordinates = location.kind === 'set' ? await this.geocode(location.fields) : null;
    const ownerId = 'company' in owner ? owner.company : owner.retailer;
    const emailValues = emails.values;
    const phoneValues = phones.values.map((p) => p.e164);

    const written = await transactional(this.ctx.em, async (tx): Promise<{ id: string; created?: Record<string, any> }> => {
      await query(tx, 'select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(?::text[]) as k', [
        duplicateKeys(ownerId, emailValues, phoneValues),
      ]);
      const duplicateId = await this.findDuplicate(tx, owner, emailValues, phoneValues);
      if (duplicateId) {
        // Locked by findDuplicate, so it cannot have gone since.
        const lead = await tx.findOneOrFail(Lead, { id: duplicateId }, { refresh: true });
        const have = {
          emails: new Set((await tx.find(Email, { lead: lead.id })).map((e) => e.email)),
          phones: new Set((await tx.find(PhoneNumber, { lead: lead.id })).map((p) => p.phoneNumber)),
        };
        const merge: LeadMerge = {
          emailsAdded: emailValues.filter((email) => !have.emails.has(email)),
          phoneNumbersAdded: phoneValues.filter((phone) => !have.phones.has(phone)),
          nameFilled: isBlank(lead.name),
          locationFilled: !lead.location && location.kind === 'set',
          assigneeChanged: !!assignee && assignee !== lead.assigneeId,
          activitiesAdded: activities.length,
        };
        if (merge.nameFilled) lead.name = name;
        if (merge.locationFilled && location.kind === 'set') lead.location = tx.create(Location, locationData(location.fields, coordinates));
        if (!lead.sourceId && !lead.sourceType && (input.sourceId || sourceType)) {
          lead.sourceId = input.sourceId ?? null;
          lead.sourceType = sourceType ?? null;
        }
        for (const email of merge.emailsAdded) tx.create(Email, { email, lead });
        for (const phone of phones.values) if (merge.phoneNumbersAdded.includes(phone.e164)) createPhone(tx, lead, phone);
        if (merge.assigneeChanged) {
          addActivity(tx, lead, { type: 'LeadActivity::Assignment', data: { from_id: lead.assigneeId, to_id: assignee } });
          lead.assignee = tx.getReference(CompanyRetailerLocation, assignee!);
        }
        for (const a of activities) addActivity(tx, lead, a);
        if (!assignee && !lead.assignee && 'company' in owner) {
          const stored = lead.location ? await tx.findOne(Location, { id: lead.location.id }) : null;
          const routed = await this.routing(tx, owner.company, stored);
          if (routed) {
            lead.assignee = tx.getReference(CompanyRetailerLocation, routed.assigneeId);
            addActivity(tx, lead, routed.activity);
          }
        }
        // Last, so it heads the timeline: a person can see that this lead came back, and with what.
        addActivity(tx, lead, mergeNote(merge));
        await tx.flush();
        await recordLeadEvent(tx, 'lead.merged', lead.id);
        merges(this.ctx).set(lead.id, merge);
        return { id: lead.id };
      }
      const routed = !assignee && 'company' in owner ? await this.routing(tx, owner.company, location.kind === 'set' ? locationData(location.fields, coordinates) : null) : null;
      const row = await insertLead(tx, {
        name: name!, // validated above
        status: status ?? 'New',
        ownerCompanyId: 'company' in owner ? owner.company : null,
        ownerRetailerId: 'retailer' in owner ? owner.retailer : null,
        assigneeId: assignee ?? routed?.assigneeId ?? null,
        sourceType: sourceType ?? null,
        sourceId: input.sourceId ?? null,
        createdById: this.caller.userId,
        location: location.kind === 'set' ? locationData(location.fields, coordinates) : null,
        emails: emailValues,
        phones: phones.values,
        activities: routed ? [...activities, routed.activity] : activities,
      });
      return { id: row.id, created: row };
    });
    return this.reload(written.id, written.created);
  }

  /**
   * Lead routing (src/modules/routing): a company lead created without an assignee goes to the store the
   * company's rules choose, with an `Assignment` activity naming the rule and the distance in miles. The
   * lead's territory is its creator's when a territory manager creates it.
   */
  private async routing(tx: EntityManager, companyId: string, address: LeadAddress | null): Promise<{ assigneeId: string; activity: NewActivity } | null> {
    const territoryId = this.caller.role === Role.CompanyTerritoryManager ? this.caller.territoryId : null;
    const choice = await routeNewLead(tx, companyId, address, territoryId);
    if (!choice) return null;
    return {
      assigneeId: choice.crlId,
      activity: { type: 'LeadActivity::Assignment', data: { from_id: null, to_id: choice.crlId, rule: choice.rule, distance_miles: choice.distanceMiles } },
    };
  }

  /**
   * PATCH (`replace` false): absent keys stay; nested items with `id` update, with `_destroy` go, without
   * `id` are added. PUT (`replace` true): the body is the whole lead: absent attributes are cleared
   * (`name` is still required), the sent emails, phone numbers and location replace the stored ones;
   * `status` and `lead_activities` (the timeline) keep PATCH semantics.
   */
  async update(id: string, input: LeadInput, replace: boolean): Promise<LeadRow> {
    const current = await this.entity(id);
    authorize(leadActions, this.caller, 'update');
    const assignee = await this.assigneeRequest(input, current.ownerCompany?.id ?? null);
    // SPEC 2.2: removing an activity is destroying it.
    if (input.leadActivities?.some((a) => a.id && a._destroy) && !may(leadActions, this.caller, 'destroy')) throw forbidden();

    await transactional(this.ctx.em, async (tx) => {
      const lead = await tx.findOne(Lead, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!lead) throw notFound('Lead', id); // destroyed since the scope check
      const storedEmails = await tx.find(Email, { lead: id }, { orderBy: INSERTION_ORDER });
      const storedPhones = await tx.find(PhoneNumber, { lead: id }, { orderBy: INSERTION_ORDER });
      const storedLocation = lead.location ? await tx.findOne(Location, { id: lead.location.id }, { refresh: true }) : null;
      const activityIds = (input.leadActivities ?? []).map((a) => a.id).filter(isUuid);
      const storedActivities = activityIds.length ? await tx.find(LeadActivity, { id: { $in: activityIds }, lead: id }) : [];

      const v = new Validator();
      const name = input.name !== undefined || replace ? requiredString(input.name, 'name', v) : undefined;
      const status = input.status !== undefined ? requiredString(input.status, 'status', v, MAX_STATUS) : undefined;
      const sourceType = input.sourceType !== undefined || replace ? optionalString(input.sourceType ?? null, 'source_type', v) : undefined;
      const emails = planEmails(input.emails, storedEmails, replace, v);
      const phones = planPhones(input.phoneNumbers, storedPhones, replace, v);
      const location = planLocation(input.location, storedLocation, replace, v);
      const activities = planActivities(input.leadActivities, storedActivities, v);
      if (!emails.values.length && !phones.values.length) v.add('base', 'contact_required', 'needs at least one email or phone number');
      v.throwIfAny();

      const automatic: NewActivity[] = [];
      if (name !== undefined) lead.name = name;
      if (status !== undefined && status !== lead.status) {
        automatic.push({ type: 'LeadActivity::StatusChange', data: { from: lead.status, to: status } });
        lead.status = status;
      }
      const nextAssignee = assignee === undefined && replace ? null : assignee;
      if (nextAssignee !== undefined && nextAssignee !== lead.assigneeId) {
        automatic.push({ type: 'LeadActivity::Assignment', data: { from_id: lead.assigneeId, to_id: nextAssignee } });
        lead.assignee = nextAssignee ? tx.getReference(CompanyRetailerLocation, nextAssignee) : null;
      }
      if (input.sourceId !== undefined || replace) lead.sourceId = input.sourceId ?? null;
      if (sourceType !== undefined) lead.sourceType = sourceType;

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

      if (location.kind === 'remove' && storedLocation) {
        lead.location = null;
        tx.remove(storedLocation);
      } else if (location.kind === 'set') {
        const target = storedLocation ?? tx.create(Location, {});
        const before = addressOf(target);
        Object.assign(target, location.fields);
        // Geocoded inside the transaction: the address to place is the merged one read under the row lock.
        if (!storedLocation || before !== addressOf(target)) await this.placeLocation(target);
        lead.location = target;
      }

      for (const a of automatic) addActivity(tx, lead, a);
      applyNested(tx, activities, (entity, item) => {
        Object.assign(entity, item.changes);
      });
      for (const a of activities.creates) addActivity(tx, lead, a.activity);
      await tx.flush();
      await recordLeadEvent(tx, 'lead.updated', lead.id);
    });
    return this.reload(id);
  }

  /** PRODUCT.md section 4: company and retailer admins destroy the leads they see. */
  async delete(id: string): Promise<void> {
    const lead = await this.entity(id);
    authorize(leadActions, this.caller, 'destroy');
    const locationId = lead.location?.id;
    await transactional(this.ctx.em, async (tx) => {
      await tx.nativeDelete(Lead, { id });
      if (locationId) await tx.nativeDelete(Location, { id: locationId });
    });
  }

  private owner(): Owner {
    const c = this.caller;
    if (isCompanyRole(c.role) && c.companyId) return { company: c.companyId };
    if (isRetailerRole(c.role) && c.retailerId) return { retailer: c.retailerId };
    throw forbidden();
  }

  /**
   * SPEC 2.1, 4.3 rules 2-3 and PRODUCT.md section 4: an assignee must be a company retailer location the
   * caller sees and, for a lead a company owns (`ownerCompanyId`), one of that company: a retailer user
   * sees the stores of every company it sells for, yet never routes one company's lead to another. Any
   * other type or id is 403.
   */
  private async assigneeRequest(input: LeadInput, ownerCompanyId: string | null): Promise<AssigneeRequest> {
    const typeSent = !isBlank(input.assigneeType);
    if (typeSent && input.assigneeType !== ASSIGNEE_TYPE && input.assigneeId !== null) throw forbidden();
    if (input.assigneeId === undefined || input.assigneeId === null) return input.assigneeId;
    const scope = crlScope(this.caller, 'assignee_');
    const cond = compileScope(assigneeSearch, ownerCompanyId ? { _and: [scope, { assignee_company_id: ownerCompanyId }] } : scope);
    const rows = await query(this.ctx.em, `select ${assigneeColumns('a', 'a_rl')} from ${assigneeSearch.from} where a.id = ? and (${cond.sql}) limit 1`, [
      input.assigneeId,
      ...cond.bindings,
    ]);
    if (!rows.length) throw forbidden();
    return rows[0].id;
  }

  /** The oldest visible lead of the owner sharing an email or phone, row-locked for the merge. */
  private async findDuplicate(tx: EntityManager, owner: Owner, emails: string[], phones: string[]): Promise<string | null> {
    const ownerWhere = 'company' in owner ? { owner_company_id: owner.company } : { owner_retailer_id: owner.retailer };
    const cond = compileScope(leadSearch, { ...ownerWhere, ...leadScope(this.caller) });
    const rows = await query(
      tx,
      `select l.id from ${leadSearch.from}
        where l.id in (select lead_id from emails where lower(email) = any(?::text[])
                       union select lead_id from phone_numbers where phone_number = any(?::text[]))
          and (${cond.sql})
        order by l.created_at asc, l.id asc limit 1
          for update of l`,
      [emails, phones, ...cond.bindings],
    );
    return rows[0]?.id ?? null;
  }

  /** Coordinates for an address; a geocoder failure leaves them null and never fails the write. */
  private async geocode(address: AddressQuery): Promise<Coordinates | null> {
    if (ADDRESS_KEYS.every((k) => isBlank(address[k]))) return null;
    try {
      return await this.ctx.geocoder.geocode(address);
    } catch (err) {
      logger.warn({ err }, 'geocoding failed; the location keeps null coordinates');
      return null;
    }
  }

  private async placeLocation(location: Location): Promise<void> {
    if (location.coordinatesSource === 'explicit') return;
    const coordinates = await this.geocode(location);
    location.latitude = coordinates?.latitude ?? null;
    location.longitude = coordinates?.longitude ?? null;
    location.coordinatesSource = coordinates ? 'geocoder' : null;
  }

  /**
   * The lead as committed, as a plain row. The request's identity map and loaders are dropped first: a
   * GraphQL document may run several mutations, and none may see a stale load.
   */
  private async reload(id: string, created?: Record<string, any>): Promise<LeadRow> {
    this.ctx.em.clear();
    this.ctx.loaders = new Loaders(this.ctx.em);
    if (created) return primeLeadRow(this.ctx, created);
    const row = await leadReads(this.ctx).lead.load(id);
    // Destroyed by a concurrent request right after this write committed.
    if (!row) throw notFound('Lead', id);
    return row;
  }
}

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

/** Newest first; `seq` (insertion order) breaks ties between activities of one write. */
export const TIMELINE_ORDER: Record<string, 'asc' | 'desc'> = { createdAt: 'desc', seq: 'desc' };
/** Emails and phone numbers: oldest first, those of one write in the order they were sent. */
export const INSERTION_ORDER: Record<string, 'asc' | 'desc'> = { createdAt: 'asc', seq: 'asc' };

function addActivity(tx: EntityManager, lead: Lead, a: NewActivity): LeadActivity {
  return tx.create(LeadActivity, {
    lead,
    type: a.type,
    data: a.data,
    sourceId: a.sourceId ?? null,
    sourceType: a.sourceType ?? null,
  });
}

function createPhone(tx: EntityManager, lead: Lead, phone: ParsedPhone): PhoneNumber {
  return tx.create(PhoneNumber, { phoneNumber: phone.e164, countryCode: phone.country, lead });
}

function applyNested<E extends object, I>(tx: EntityManager, plan: NestedPlan<E, I>, update: (entity: E, item: I) => void): void {
  for (const { entity, item } of plan.updates) update(entity, item);
  for (const entity of plan.removes) tx.remove(entity);
}

/**
 * Splits nested items against the stored ones: `id` of a stored item updates it (or removes it with
 * `_destroy`); any other `id` is 422 on `<field>.id`, never a write to another lead's row; items
 * without `id` are new. With `replace`, stored items the list does not keep are removed.
 */
function partition<E extends { id: string }, I extends { id?: string | null; _destroy?: boolean | null }>(
  items: I[] | null | undefined,
  stored: E[],
  replace: boolean,
  field: string,
  v: Validator,
): NestedPlan<E, I> {
  const byId = new Map(stored.map((e) => [e.id, e]));
  const plan: NestedPlan<E, I> = { updates: [], creates: [], removes: [] };
  const touched = new Set<string>();
  for (const item of items ?? []) {
    if (item.id) {
      const entity = byId.get(item.id);
      if (!entity) {
        v.add(`${field}.id`, 'invalid', `is not one of this lead's ${field.replace(/_/g, ' ')}`);
        continue;
      }
      if (touched.has(entity.id)) continue;
      touched.add(entity.id);
      if (item._destroy) plan.removes.push(entity);
      else plan.updates.push({ entity, item });
    } else if (!item._destroy) {
      plan.creates.push(item);
    }
  }
  if (replace) for (const e of stored) if (!touched.has(e.id)) plan.removes.push(e);
  return plan;
}

type EmailItem = LeadEmailInput & { normalized?: string };

/** Emails after the write: the plan, the new addresses to create and every address the lead keeps. */
function planEmails(items: LeadEmailInput[] | null | undefined, stored: Email[], replace: boolean, v: Validator) {
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
function planPhones(items: LeadPhoneNumberInput[] | null | undefined, stored: PhoneNumber[], replace: boolean, v: Validator) {
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

type LocationPlan = { kind: 'keep' } | { kind: 'remove' } | { kind: 'set'; fields: LocationFields };

/**
 * `location`: absent keeps it (PUT: removes it); null or `_destroy: true` removes it; an object sets
 * the given fields (PUT, or a new location: every field, absent ones null).
 */
function planLocation(input: LeadLocationInput | null | undefined, stored: Location | null, replace: boolean, v: Validator): LocationPlan {
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

function locationData(fields: LocationFields, coordinates: Coordinates | null) {
  return {
    ...fields,
    latitude: coordinates?.latitude ?? null,
    longitude: coordinates?.longitude ?? null,
    coordinatesSource: coordinates ? ('geocoder' as const) : null,
  };
}

function addressOf(l: Location): string {
  return JSON.stringify(ADDRESS_KEYS.map((k) => l[k] ?? null));
}

/** New nested activities of a create: type and data rules of SPEC 2.2 and 4.3. */
function planNewActivities(items: LeadActivityItemInput[] | null | undefined, v: Validator): NewActivity[] {
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
function planActivities(items: LeadActivityItemInput[] | null | undefined, stored: LeadActivity[], v: Validator) {
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
  return { updates: plan.updates, removes: plan.removes, creates } as NestedPlan<LeadActivity, ActivityItem> & {
    creates: Array<ActivityItem & { activity: NewActivity }>;
  };
}
