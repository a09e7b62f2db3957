import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { Caller } from '../../auth/caller';
import type { ListArgs, Page } from '../../graphql/common';
import { notFound, Validator } from '../../errors';
import { recordActor, transactional } from '../../db/write';
import { Loaders } from '../../db/loaders';
import { connectionOf, connectionPage, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import { isUuid, searchPage } from '../../search/list';
import type { LeadAddress } from '../routing/routing.service';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Location } from '../contact/location.entity';
import { Lead } from './lead.entity';
import type { LeadInput } from './lead.input';
import { leadSearch } from './lead.search';
import { recordLeadEvent } from '../lead-events/lead-event.repository';
import { assignableScope, leadOwner, leadPolicy, leadScope } from './lead.policy';
import { about, authorize } from '../../access/policy';
import { duplicateKeys, MAX_STATUS, optionalString, requiredString } from './lead.rules';
import { LeadRepository, leadReads, type LeadActivityRow, type LeadRow } from './lead.repository';
import { merges, mergeSubmission, type Submission } from './lead.merge';
import {
  applyChildren,
  geocodeAddress,
  locationData,
  planActivities,
  planEmails,
  planLocation,
  planNewActivities,
  planPhones,
  placeLocation,
  routedAssignment,
  storedChildren,
  type NewActivity,
} from './lead.writes';


/** The assignee a request asks for: undefined (not sent), null (unassign) or a CRL id it may route to. */
type AssigneeRequest = string | null | undefined;

/**
 * Leads (SPEC 2.1, 4.3; PRODUCT.md sections 3-5): scoped reads, the quote-request create with duplicate
 * merge (lead.merge.ts), PATCH/PUT with nested collections (lead.writes.ts), and destroy for admins.
 * Access is checked here; the SQL is the repository's.
 */
export class LeadService {
  private readonly leads: LeadRepository;

  constructor(private readonly ctx: Context) {
    this.leads = new LeadRepository(ctx);
  }

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  /**
   * A page of visible leads as plain rows: the search, then one statement for the rows and the
   * associations in `embeds` (the fields the operation selects on them).
   */
  async list(args: ListArgs, embeds: ReadonlySet<string> = new Set()): Promise<Page<LeadRow>> {
    const { ids, meta } = await searchPage(this.ctx, leadSearch, leadScope(this.caller), args);
    return { nodes: await this.leads.page(ids, embeds), meta };
  }

  /** The same list by Relay cursors: the keyset page, then its rows and `embeds` in one statement. */
  async connection(filter: ConnectionFilterArgs, paging: ConnectionArgs, embeds: ReadonlySet<string> = new Set()): Promise<Connection<LeadRow>> {
    const page = await connectionPage(this.ctx, leadSearch, leadScope(this.caller), filter, paging);
    return connectionOf(page, await this.leads.page(page.ids, embeds));
  }

  /** A visible lead as a plain row, in one statement; 404 otherwise. */
  async get(id: string): Promise<LeadRow> {
    const row = isUuid(id) ? await this.leads.visible(id, leadScope(this.caller)) : null;
    if (!row) throw notFound('Lead', id);
    return row;
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
    authorize(this.caller, 'create', leadPolicy);
    const owner = leadOwner(this.caller);
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

    const submission: Submission = {
      name: name!, // validated above
      emails: emails.values,
      phones: phones.values,
      location,
      coordinates: location.kind === 'set' ? await geocodeAddress(this.ctx.geocoder, location.fields) : null,
      sourceId: input.sourceId ?? null,
      sourceType: sourceType ?? null,
      assignee,
      activities,
    };
    const phoneValues = phones.values.map((p) => p.e164);
    const ownerWhere = 'company' in owner ? { owner_company_id: owner.company } : { owner_retailer_id: owner.retailer };
    const keys = duplicateKeys('company' in owner ? owner.company : owner.retailer, submission.emails, phoneValues);

    const written = await transactional(this.ctx.em, async (tx): Promise<{ id: string; created?: Record<string, any> }> => {
      await recordActor(tx, this.ctx.caller?.userId);
      await this.leads.lock(tx, keys);
      const duplicateId = await this.leads.findDuplicate(tx, { ...ownerWhere, ...leadScope(this.caller) }, submission.emails, phoneValues);
      const route = 'company' in owner ? (address: LeadAddress | null) => routedAssignment(tx, owner.company, address, this.caller) : null;
      if (duplicateId) {
        merges(this.ctx).set(duplicateId, await mergeSubmission(tx, duplicateId, submission, route));
        return { id: duplicateId };
      }
      const place = location.kind === 'set' ? locationData(location.fields, submission.coordinates) : null;
      const routed = !assignee && route ? await route(place) : null;
      const row = await this.leads.insert(tx, {
        name: submission.name,
        status: status ?? 'New',
        ownerCompanyId: 'company' in owner ? owner.company : null,
        ownerRetailerId: 'retailer' in owner ? owner.retailer : null,
        assigneeId: assignee ?? routed?.assigneeId ?? null,
        sourceType: submission.sourceType,
        sourceId: submission.sourceId,
        createdById: this.caller.userId,
        location: place,
        emails: submission.emails,
        phones: submission.phones,
        activities: routed ? [...activities, routed.activity] : activities,
      });
      return { id: row.id, created: row };
    }, {}, { rerun: true });
    return this.reload(written.id, written.created);
  }

  /**
   * PATCH (`replace` false): absent keys stay; nested items with `id` update, with `_destroy` go, without
   * `id` are added. PUT (`replace` true): the body is the whole lead: absent attributes are cleared
   * (`name` is still required), the sent emails, phone numbers and location replace the stored ones;
   * `status` and `lead_activities` (the timeline) keep PATCH semantics.
   */
  async update(id: string, input: LeadInput, replace: boolean): Promise<LeadRow> {
    const current = await this.leads.entity(id, leadScope(this.caller));
    authorize(this.caller, 'update', leadPolicy);
    const assignee = await this.assigneeRequest(input, current.ownerCompany?.id ?? null);
    // SPEC 2.2: removing an activity is destroying it.
    if (input.leadActivities?.some((a) => a.id && a._destroy)) authorize(this.caller, 'destroy', leadPolicy);

    await transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, this.ctx.caller?.userId);
      const lead = await tx.findOne(Lead, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!lead) throw notFound('Lead', id); // destroyed since the scope check
      const stored = await storedChildren(tx, lead, input.leadActivities);

      const v = new Validator();
      const name = input.name !== undefined || replace ? requiredString(input.name, 'name', v) : undefined;
      const status = input.status !== undefined ? requiredString(input.status, 'status', v, MAX_STATUS) : undefined;
      const sourceType = input.sourceType !== undefined || replace ? optionalString(input.sourceType ?? null, 'source_type', v) : undefined;
      const plans = {
        emails: planEmails(input.emails, stored.emails, replace, v),
        phones: planPhones(input.phoneNumbers, stored.phones, replace, v),
        location: planLocation(input.location, stored.location, replace, v),
        activities: planActivities(input.leadActivities, stored.activities, v),
      };
      if (!plans.emails.values.length && !plans.phones.values.length) v.add('base', 'contact_required', 'needs at least one email or phone number');
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
      await applyChildren(tx, lead, stored, plans, automatic, (location) => placeLocation(this.ctx.geocoder, location));
      await tx.flush();
      await recordLeadEvent(tx, 'lead.updated', lead.id);
    }, {}, { rerun: true });
    return this.reload(id);
  }

  /** PRODUCT.md section 4: company and retailer admins destroy the leads they see. */
  async delete(id: string): Promise<void> {
    const lead = await this.leads.entity(id, leadScope(this.caller));
    authorize(this.caller, 'destroy', leadPolicy);
    const locationId = lead.location?.id;
    await transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, this.ctx.caller?.userId);
      await tx.nativeDelete(Lead, { id });
      if (locationId) await tx.nativeDelete(Location, { id: locationId });
    }, {}, { rerun: true });
  }

  /**
   * SPEC 2.1, 4.3 rules 2-3 and PRODUCT.md section 4: an assignee must be a company retailer location the
   * caller sees and, for a lead a company owns (`ownerCompanyId`), one of that company: a retailer user
   * sees the stores of every company it sells for, yet never routes one company's lead to another. Any
   * other type or id is 403.
   */
  private async assigneeRequest(input: LeadInput, ownerCompanyId: string | null): Promise<AssigneeRequest> {
    const named = { type: input.assigneeType, id: input.assigneeId };
    authorize(this.caller, 'assign', about(leadPolicy, { assignee: named }));
    if (input.assigneeId === undefined || input.assigneeId === null) return input.assigneeId;
    const found = await this.leads.assignee(input.assigneeId, assignableScope(this.caller, ownerCompanyId));
    authorize(this.caller, 'assign', about(leadPolicy, { assignee: { ...named, assignable: found !== null } }));
    return found;
  }

  /**
   * The lead as committed, as a plain row. The request's identity map and loaders are dropped first: a
   * GraphQL document may run several mutations, and none may see a stale load.
   */
  private async reload(id: string, created?: Record<string, any>): Promise<LeadRow> {
    this.ctx.em.clear();
    this.ctx.loaders = new Loaders(this.ctx.em);
    const row = await this.leads.committed(id, created);
    // Destroyed by a concurrent request right after this write committed.
    if (!row) throw notFound('Lead', id);
    return row;
  }
}

