import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { authorOf, type Caller } from '../../auth/caller';
import type { ListArgs, Page } from '../../graphql/common';
import { AppError, notFound, Validator } from '../../errors';
import type { Where } from '../../search/types';
import { recordActor, transactional } from '../../db/write';
import { isDatabaseUnavailable, isTransactionConflict } from '../../db/outage';
import { WorkBudget } from '../../work-budget';
import type { Config } from '../../config';
import { Loaders } from '../../db/loaders';
import { connectionOf, connectionPage, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import { isUuid, searchPage } from '../../search/list';
import { routingForMany, type LeadAddress } from '../routing/routing.service';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Location } from '../contact/location.entity';
import { Lead } from './lead.entity';
import type { LeadInput } from './lead.input';
import { leadSearch } from './lead.search';
import { recordLeadEvent } from '../lead-events/lead-event.repository';
import { assignableScope, leadOwner, leadPolicy, leadScope } from './lead.policy';
import { about, authorize } from '../../access/policy';
import { duplicateKeys, MAX_STATUS, optionalString, requiredString } from './lead.rules';
import { LeadRepository, leadReads, primeLeadRow, type DuplicateCandidate, type LeadActivityRow, type LeadRow, type NewLead } from './lead.repository';
import type { LeadMerge } from './lead.types';
import { mergeMany, mergeOf, merges, mergeSubmission, withMerge, type Route, type Submission } from './lead.merge';
import { planConsents, type NewConsent } from './lead-consent.types';
import { insertApiConsents, insertConsentsOfMany } from './lead-consent.repository';
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
    const create = await this.prepareCreate(input, owner, (id, where) => this.leads.assignee(id, where));
    const { submission, ownerWhere } = create;

    const written = await transactional(this.ctx.em, async (tx): Promise<{ id: string; created?: Record<string, any> }> => {
      await recordActor(tx, this.ctx.caller?.userId);
      await this.leads.lock(tx, create.keys);
      const duplicateId = await this.leads.findDuplicate(tx, { ...ownerWhere, ...leadScope(this.caller) }, submission.emails, create.phoneValues);
      const route = 'company' in owner ? (address: LeadAddress | null) => routedAssignment(tx, owner.company, address, this.caller) : null;
      if (duplicateId) {
        merges(this.ctx).set(duplicateId, await mergeSubmission(tx, duplicateId, submission, route));
        await insertApiConsents(tx, duplicateId, create.consents);
        return { id: duplicateId };
      }
      const routed = !submission.assignee && route ? await route(create.place) : null;
      const row = await this.leads.insert(tx, this.newLead(create, routed));
      await insertApiConsents(tx, row.id, create.consents);
      return { id: row.id, created: row };
    }, {}, { rerun: true });
    return this.reload(written.id, written.created);
  }

  /**
   * Up to `LIMITS.maxBatchItems` creates (POST /v1/leads/batch), each answered as `create` answers it, in one
   * transaction: the items are checked first (an item that fails is answered by its error, the others go
   * on); then every item's duplicate keys are locked at once (sorted), its duplicates found in one
   * statement, and the items taken in order, each merging into the oldest lead it shares an email or
   * phone number with (an earlier item's lead too: as separate requests would) or creating one. The
   * creates are written by one statement, then the merges by a constant number a round (`mergeDeferred`).
   * A failure of the statement writing several creates is retried item by item, each in its own
   * savepoint, and a failing merge runs the batch again with each merge in its own savepoint, so that one
   * item's failure is its own answer. A lead import (src/modules/import/lead-import.ts) creates its rows
   * here too, its consents recorded with source `import`.
   */
  async createMany(inputs: readonly LeadInput[], options: { consentSource?: 'api' | 'import' } = {}): Promise<Array<LeadRow | AppError>> {
    authorize(this.caller, 'create', leadPolicy);
    // The process's budget of batch items in flight (docs/partners.md "Batches"): memory and transaction
    // time grow with a batch's items, so ten batches at once wait their turns instead of holding ten times.
    return leadBatchTurn(this.ctx.config, inputs.length, () => this.createManyInTurn(inputs, options));
  }

  private async createManyInTurn(inputs: readonly LeadInput[], { consentSource = 'api' }: { consentSource?: 'api' | 'import' }): Promise<Array<LeadRow | AppError>> {
    const owner = leadOwner(this.caller);
    const companyId = 'company' in owner ? owner.company : null;
    // One statement for the assignees every item names.
    const named = [...new Set(inputs.map((i) => i.assigneeId).filter((id): id is string => typeof id === 'string' && isUuid(id)))];
    const assignable = await this.leads.assignees(named, assignableScope(this.caller, companyId));
    const prepared = await mapLimited(inputs, GEOCODE_CONCURRENCY, (input) =>
      itemAnswer(() => this.prepareCreate(input, owner, async (id) => (assignable.has(id) ? id : null))),
    );
    const creates = prepared.filter((p): p is PreparedCreate => !(p instanceof AppError));
    if (!creates.length) return prepared as AppError[];

    // The creates are written by one statement, then the merges together (`mergeDeferred`), without a
    // savepoint each (a savepoint costs two round trips, and past 64 of them every row check of the
    // transaction reads pg_subtrans); when a merge fails, the whole batch runs again isolated: in order,
    // each merge in its own savepoint, so that the failure is that item's answer alone.
    const write = (isolated: boolean) => transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, this.ctx.caller?.userId);
      await this.leads.lock(tx, [...new Set(creates.flatMap((c) => c.keys))].sort());
      const settings = companyId ? await routingForMany(tx, companyId) : null;
      const route = (em: EntityManager) =>
        settings && companyId ? (address: LeadAddress | null) => routedAssignment(em, companyId, address, this.caller, settings) : null;
      const candidates = await this.leads.duplicatesOfMany(
        tx,
        { ...creates[0].ownerWhere, ...leadScope(this.caller) },
        [...new Set(creates.flatMap((c) => c.submission.emails))],
        [...new Set(creates.flatMap((c) => c.phoneValues))],
      );
      const targets = new DuplicateTargets(candidates);
      const out = new Map<PreparedCreate, Record<string, any> | AppError>();
      let pending: Array<{ create: PreparedCreate; slot: number }> = [];
      const slots: Array<string | null> = []; // the lead id of each created slot, once written
      const flush = async () => {
        if (!pending.length) return;
        const written = await this.insertCreates(tx, pending.map((p) => p.create), route);
        pending.forEach((p, i) => {
          const row = written[i];
          out.set(p.create, row);
          if (!(row instanceof AppError)) slots[p.slot] = row.id;
          else targets.forget(p.slot);
        });
        pending = [];
      };
      const deferred: DeferredMerge[] = [];
      for (const create of creates) {
        const keys = itemKeys(create);
        let target = targets.oldest(keys);
        if (target && pending.length && isolated) {
          // The creates before a merge are written first (a pending one may be its target, and may fail).
          await flush();
          target = targets.oldest(keys);
        }
        if (!target) {
          const slot = slots.push(null) - 1;
          targets.add(keys, { slot });
          pending.push({ create, slot });
          continue;
        }
        if (!isolated) {
          // Written after the creates, together (mergeDeferred); a failure runs the batch again isolated.
          deferred.push({ create, target });
          targets.add(keys, target);
          continue;
        }
        const id = 'id' in target ? target.id : slots[target.slot]!;
        // Each merge on an empty unit of work: the batch's earlier merges are not copied into it.
        const merged = await itemAnswer(() =>
          transactional(tx, async (em) => {
            const added = await mergeSubmission(em, id, create.submission, route(em));
            const [row] = await this.leads.current(em, [id]);
            return withMerge(row, added);
          }, {}, { rerun: true }),
        );
        out.set(create, merged);
        if (!(merged instanceof AppError)) targets.add(keys, target);
      }
      await flush();
      await this.mergeDeferred(tx, deferred, slots, route, out);
      const consented = creates.flatMap((create) => {
        const row = out.get(create);
        return row && !(row instanceof AppError) ? [{ leadId: row.id as string, consents: create.consents }] : [];
      });
      await insertConsentsOfMany(tx, consented, consentSource);
      return out;
    }, {}, { rerun: true });
    let answers: Map<PreparedCreate, Record<string, any> | AppError>;
    try {
      answers = await write(false);
    } catch (e) {
      if (!(e instanceof MergeFailed)) throw e;
      answers = await write(true);
    }

    this.ctx.em.clear();
    this.ctx.loaders = new Loaders(this.ctx.em);
    return prepared.map((p) => {
      if (p instanceof AppError) return p;
      const answer = answers.get(p)!;
      if (answer instanceof AppError) return answer;
      const row = primeLeadRow(this.ctx, answer);
      const merge = mergeOf(answer);
      return merge ? withMerge(row, merge) : row;
    });
  }

  /**
   * A batch's merges, once its creates are written: in rounds, the k-th merge into a lead in round k, so
   * that each reads what the one before it wrote and each answer is the lead as its item left it; a
   * round is `mergeMany` (a constant number of statements) on an empty unit of work. A merge whose target
   * create failed, or a failure that may be one item's, throws `MergeFailed`: the batch runs again
   * isolated, in order.
   */
  private async mergeDeferred(
    tx: EntityManager,
    deferred: readonly DeferredMerge[],
    slots: ReadonlyArray<string | null>,
    route: (em: EntityManager) => Route,
    out: Map<PreparedCreate, Record<string, any> | AppError>,
  ): Promise<void> {
    const rounds: Array<Array<{ create: PreparedCreate; id: string }>> = [];
    const mergesOf = new Map<string, number>();
    for (const { create, target } of deferred) {
      const id = 'id' in target ? target.id : slots[target.slot];
      if (!id) throw new MergeFailed();
      const round = mergesOf.get(id) ?? 0;
      mergesOf.set(id, round + 1);
      (rounds[round] ??= []).push({ create, id });
    }
    for (const round of rounds) {
      const em = tx.fork({ clear: true, keepTransactionContext: true });
      const ids = round.map((m) => m.id);
      let added: LeadMerge[];
      let rows: Map<string, Record<string, any>>;
      try {
        added = await mergeMany(em, round.map((m) => ({ id: m.id, submission: m.create.submission })), route(em));
        rows = new Map((await this.leads.current(em, ids)).map((row) => [row.id as string, row]));
      } catch (e) {
        // What fails a whole batch (a deadlock, which transactional runs again; the database gone; a
        // statement past its bound) fails it as before; any other may be one item's: the batch runs again isolated.
        if (isBatchError(e)) throw e;
        throw new MergeFailed();
      }
      round.forEach((m, i) => out.set(m.create, withMerge(rows.get(m.id)!, added[i])));
    }
  }

  /** Creates written by one statement; when it fails, one by one in savepoints, each failure its item's answer. */
  private async insertCreates(
    tx: EntityManager,
    creates: PreparedCreate[],
    route: (em: EntityManager) => Route,
  ): Promise<Array<Record<string, any> | AppError>> {
    const one = async (em: EntityManager, create: PreparedCreate) => {
      const router = route(em);
      const routed = !create.submission.assignee && router ? await router(create.place) : null;
      return this.newLead(create, routed);
    };
    if (creates.length > 1) {
      try {
        return await transactional(tx, async (sp) => {
          const leads: NewLead[] = [];
          for (const create of creates) leads.push(await one(sp, create));
          return this.leads.insertMany(sp, leads);
        });
      } catch (e) {
        if (!isItemError(e)) throw e;
        // One item's problem (a reference gone since it was checked...): find which, one at a time.
      }
    }
    const rows: Array<Record<string, any> | AppError> = [];
    for (const create of creates) rows.push(await itemAnswer(() => transactional(tx, async (sp) => this.leads.insert(sp, await one(sp, create)))));
    return rows;
  }

  /** A create's request checked (assignee, attributes) and geocoded: no statement of the write yet. */
  private async prepareCreate(
    input: LeadInput,
    owner: { company: string } | { retailer: string },
    findAssignee: (id: string, where: Where) => Promise<string | null>,
  ): Promise<PreparedCreate> {
    const assignee = await this.assigneeRequest(input, 'company' in owner ? owner.company : null, findAssignee);
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
    const consents = planConsents(input.consents, v);
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
    return {
      submission,
      status,
      owner,
      ownerWhere: 'company' in owner ? { owner_company_id: owner.company } : { owner_retailer_id: owner.retailer },
      phoneValues,
      keys: duplicateKeys('company' in owner ? owner.company : owner.retailer, submission.emails, phoneValues),
      place: location.kind === 'set' ? locationData(location.fields, submission.coordinates) : null,
      consents,
    };
  }

  /** The row a create writes, with the routed store when routing chose one. */
  private newLead(create: PreparedCreate, routed: { assigneeId: string; activity: NewActivity } | null): NewLead {
    const { submission, owner } = create;
    return {
      name: submission.name,
      status: create.status ?? 'New',
      ownerCompanyId: 'company' in owner ? owner.company : null,
      ownerRetailerId: 'retailer' in owner ? owner.retailer : null,
      assigneeId: submission.assignee ?? routed?.assigneeId ?? null,
      sourceType: submission.sourceType,
      sourceId: submission.sourceId,
      // Null for a lead written on the organisation's behalf (a visitor's form): created_by_id names a user.
      createdById: authorOf(this.caller) as string,
      location: create.place,
      emails: submission.emails,
      phones: submission.phones,
      activities: routed ? [...submission.activities, routed.activity] : submission.activities,
    };
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
        consents: planConsents(input.consents, v),
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
      await insertApiConsents(tx, lead.id, plans.consents);
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
  private async assigneeRequest(
    input: LeadInput,
    ownerCompanyId: string | null,
    findAssignee: (id: string, where: Where) => Promise<string | null> = (id, where) => this.leads.assignee(id, where),
  ): Promise<AssigneeRequest> {
    const named = { type: input.assigneeType, id: input.assigneeId };
    authorize(this.caller, 'assign', about(leadPolicy, { assignee: named }));
    if (input.assigneeId === undefined || input.assigneeId === null) return input.assigneeId;
    const found = await findAssignee(input.assigneeId, assignableScope(this.caller, ownerCompanyId));
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

/** A create checked and geocoded (`prepareCreate`): what its write needs. */
interface PreparedCreate {
  submission: Submission;
  status: string | undefined;
  owner: { company: string } | { retailer: string };
  ownerWhere: Where;
  phoneValues: string[];
  /** Its duplicate lock keys, sorted. */
  keys: string[];
  place: ReturnType<typeof locationData> | null;
  /** The consents sent with it (source `api`), written to the lead it creates or merges into. */
  consents: NewConsent[];
}

/** Items of a batch checked at once: their geocoding may ask a remote geocoder. */
const GEOCODE_CONCURRENCY = 8;

/**
 * Whether an error is one item's answer (its 422, 403 or 404) rather than the request's: an outage, a
 * deadlock or a bug fails the whole batch (and a deadlock runs it again).
 */
function isItemError(e: unknown): e is AppError {
  return e instanceof AppError && e.code !== 'SERVICE_UNAVAILABLE' && e.code !== 'INTERNAL_SERVER_ERROR';
}

/** A failure no item answers alone: the whole batch's. */
function isBatchError(e: unknown): boolean {
  return isTransactionConflict(e) || isDatabaseUnavailable(e) || (e instanceof AppError && !isItemError(e));
}

/** A batch's merge failed outside a savepoint: the batch runs again with each merge in its own. */
class MergeFailed extends Error {}

/** `work`'s value, or its error when that is the item's own. */
async function itemAnswer<T>(work: () => Promise<T>): Promise<T | AppError> {
  try {
    return await work();
  } catch (e) {
    if (isItemError(e)) return e;
    throw e;
  }
}

/** Each process's (each configuration's) budget of lead batch items in flight. */
const batchBudgets = new WeakMap<Config, WorkBudget>();
/**
 * `work` in a turn of the lead batch budget (`items` items). `createMany` takes it; the REST batch takes it
 * before its Idempotency-Key's transaction, so that a batch waiting its turn holds no database connection.
 */
export function leadBatchTurn<T>(config: Config, items: number, work: () => Promise<T>): Promise<T> {
  let budget = batchBudgets.get(config);
  if (!budget) batchBudgets.set(config, (budget = new WorkBudget(config.leadBatchItemsInFlight)));
  return budget.run(items, work);
}

/** `work` over `items` with at most `limit` running at once, answers in order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const runner = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  return out;
}

/** The identity keys of an item, as `DuplicateTargets` reads them. */
const itemKeys = (create: PreparedCreate) => [...create.submission.emails.map((e) => `email:${e}`), ...create.phoneValues.map((p) => `phone:${p}`)];

type Target = { id: string; rank: number } | { slot: number };
/** A batch item that merges, and into which lead: a stored one, or the one an earlier item creates. */
type DeferredMerge = { create: PreparedCreate; target: Target };

/**
 * The lead each email and phone number of a batch belongs to, as the batch goes: the caller's stored
 * leads (oldest first, as `findDuplicate` picks) and the leads earlier items created, which are newer
 * than any stored one and ordered by item. An item merges into the oldest lead of its keys, which then
 * holds the item's keys too, as it would after a separate request.
 */
class DuplicateTargets {
  private readonly byKey = new Map<string, Target[]>();

  constructor(candidates: readonly DuplicateCandidate[]) {
    candidates.forEach((c, rank) => this.add([...c.emails.map((e) => `email:${e}`), ...c.phones.map((p) => `phone:${p}`)], { id: c.id, rank }));
  }

  add(keys: readonly string[], target: Target): void {
    for (const key of keys) {
      const list = this.byKey.get(key) ?? [];
      if (!list.some((t) => sameTarget(t, target))) list.push(target);
      this.byKey.set(key, list);
    }
  }

  /** A created slot whose write failed holds no keys. */
  forget(slot: number): void {
    for (const [key, list] of this.byKey) this.byKey.set(key, list.filter((t) => !('slot' in t && t.slot === slot)));
  }

  oldest(keys: readonly string[]): Target | undefined {
    let best: Target | undefined;
    for (const key of keys) for (const t of this.byKey.get(key) ?? []) if (!best || older(t, best)) best = t;
    return best;
  }
}

const sameTarget = (a: Target, b: Target) => ('id' in a && 'id' in b ? a.id === b.id : 'slot' in a && 'slot' in b && a.slot === b.slot);
/** Stored leads before created ones; stored ones by rank (created_at, id), created ones by item. */
const older = (a: Target, b: Target) => ('id' in a ? !('id' in b) || a.rank < b.rank : 'slot' in b && a.slot < b.slot);
