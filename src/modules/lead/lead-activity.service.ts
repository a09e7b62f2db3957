import type { Context } from '../../context';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { Caller } from '../../auth/caller';
import type { ListArgs, Page } from '../../graphql/common';
import { notFound, Validator } from '../../errors';
import { recordActor, transactional } from '../../db/write';
import { reloadAfterWrite } from './lead.reload';
import { findInScope, listPageRows } from '../../search/list';
import { checkReferences, seenLoader } from '../../access/visibility';
import { leadVisible } from './lead.search';
import { leadActivityRows, type LeadActivityRow } from './lead.repository';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';
import type { LeadActivityInput } from './lead.input';
import { leadActivitySearch } from './lead.search';
import { leadActivityPolicy, leadScope } from './lead.policy';
import { authorize } from '../../access/policy';
import { checkActivityData, checkActivityType, checkFreeFormObject, optionalString } from './lead.rules';

/**
 * Lead activities (SPEC 2.2). Authorization is the parent lead's: show follows its visibility, create
 * and update its update right, destroy its destroy right (`leadActivityPolicy`).
 */
export class LeadActivityService {
  constructor(private readonly ctx: Context) {}

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  /**
   * A page of activities as plain rows. The page's scope is the leads' (`leadScope` over the activity's
   * kept lead keys), so each activity's lead is one the caller sees: the lead visibility loader is
   * primed, not asked. With `leadFields` (the fields the operation selects on `lead`), the leads and
   * what they embed are read by the same statement and primed for the `lead` field (`leadActivityRows`).
   */
  async list(args: ListArgs, leadFields: ReadonlySet<string> = new Set()): Promise<Page<LeadActivityRow>> {
    const page = await listPageRows(this.ctx, leadActivitySearch, leadScope(this.caller), args, leadActivityRows(this.ctx, leadFields));
    const seen = seenLoader(this.ctx, leadVisible);
    for (const a of page.nodes) seen.prime(a.leadId, true);
    return page;
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<LeadActivity>> {
    return listConnection(this.ctx, leadActivitySearch, LeadActivity, leadScope(this.caller), filter, paging);
  }

  get(id: string): Promise<LeadActivity> {
    return findInScope(this.ctx, leadActivitySearch, LeadActivity, leadScope(this.caller), id, 'LeadActivity');
  }

  async create(input: LeadActivityInput): Promise<LeadActivity> {
    authorize(this.caller, 'create', leadActivityPolicy);
    const v = new Validator();
    const leadId = await this.visibleLead(input.leadId, v);
    const type = checkActivityType(input.type, v);
    checkActivityData(type, input.data, v);
    const fields = this.attributes(input, true, v);
    v.throwIfAny();
    const id = await transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, this.ctx.caller?.userId);
      const activity = tx.create(LeadActivity, {
        lead: tx.getReference(Lead, leadId!),
        type: type!,
        data: (input.data ?? null) as Record<string, unknown> | null,
        ...fields,
      });
      await tx.flush();
      return activity.id;
    }, {}, { rerun: true });
    return this.reload(id);
  }

  /**
   * PATCH (`replace` false) changes the sent attributes. PUT (`replace` true) replaces them all: absent
   * `data`, `source_*`, `crm_*` become null; `lead_id` and `type` stay unless sent.
   */
  async update(id: string, input: LeadActivityInput, replace: boolean): Promise<LeadActivity> {
    const activity = await this.get(id);
    authorize(this.caller, 'update', leadActivityPolicy);
    const v = new Validator();
    const leadId = input.leadId !== undefined && input.leadId !== activity.lead.id ? await this.visibleLead(input.leadId, v) : undefined;
    const type = input.type !== undefined ? checkActivityType(input.type, v) : activity.type;
    const data = input.data !== undefined || replace ? (input.data ?? null) : activity.data;
    if (input.type !== undefined || input.data !== undefined || replace) checkActivityData(type, data, v);
    const fields = this.attributes(input, replace, v);
    v.throwIfAny();
    await transactional(this.ctx.em, async (tx) => {
      await recordActor(tx, this.ctx.caller?.userId);
      const row = await tx.findOne(LeadActivity, { id }, { refresh: true });
      if (!row) throw notFound('LeadActivity', id); // destroyed since the scope check
      if (leadId) row.lead = tx.getReference(Lead, leadId);
      if (type) row.type = type;
      row.data = data as Record<string, unknown> | null;
      Object.assign(row, fields);
      await tx.flush();
    }, {}, { rerun: true });
    return this.reload(id);
  }

  async delete(id: string): Promise<void> {
    await this.get(id);
    authorize(this.caller, 'destroy', leadActivityPolicy);
    await transactional(this.ctx.em, (tx) => tx.nativeDelete(LeadActivity, { id }), {}, { rerun: true });
  }

  /** The sent (with `all`, every) attribute besides lead, type and data, checked. */
  private attributes(input: LeadActivityInput, all: boolean, v: Validator): Partial<LeadActivity> {
    const out: Partial<LeadActivity> = {};
    for (const [key, field] of [
      ['sourceType', 'source_type'],
      ['crmId', 'crm_id'],
      ['crmProvider', 'crm_provider'],
    ] as const) {
      if (input[key] === undefined && !all) continue;
      const value = optionalString(input[key] ?? null, field, v);
      if (value !== undefined) out[key] = value;
    }
    if (input.sourceId !== undefined || all) out.sourceId = input.sourceId ?? null;
    if (input.crmDataCache !== undefined || all) {
      checkFreeFormObject(input.crmDataCache, 'crm_data_cache', v);
      out.crmDataCache = (input.crmDataCache ?? null) as Record<string, unknown> | null;
    }
    return out;
  }

  /**
   * The lead an activity goes on: required, and one the caller sees (it may then update it). Any other
   * id is 422 `invalid` on `lead_id`, worded as for a lead that does not exist.
   */
  private async visibleLead(leadId: string | null | undefined, v: Validator): Promise<string | undefined> {
    if (!leadId) {
      v.add('lead_id', 'blank');
      return undefined;
    }
    const unseen = await checkReferences(this.ctx, [{ field: 'lead_id', kind: leadVisible, id: leadId, unseen: 'invalid' }]);
    if (unseen.size) {
      v.add('lead_id', 'invalid', 'does not refer to a lead');
      return undefined;
    }
    return leadId;
  }

  private async reload(id: string): Promise<LeadActivity> {
    return reloadAfterWrite(this.ctx, LeadActivity, id);
  }
}
