import { FlushMode } from '@mikro-orm/core';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { ListArgs, Page } from '../../graphql/common';
import { destroyHalted, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { about, authorize, writableBy } from '../../access/policy';
import { permit } from '../../access/permit';
import { checkReferences } from '../../access/visibility';
import { territoryVisible } from '../territory/territory.search';
import { findInScope, listPageRows } from '../../search/list';
import { companyRetailerRows } from './company-retailer.repository';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { Location } from '../contact/location.entity';
import { ContactWriter } from '../contact/contact.writes';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { CompanyRetailer } from './company-retailer.entity';
import type { CompanyRetailerInput } from './company-retailer.input';
import { companyRetailerSearch } from './company-retailer.search';
import { companyRetailerPolicy, companyRetailerScope, companyRetailerWritable } from './company-retailer.policy';

const UNIQUE = { company_retailers_company_id_retailer_id_unique: 'retailer_id' };

/** What PUT resets when the body leaves it out (the identifying `retailer_id` and `company_id` stay). */
const REPLACED_DEFAULTS: Partial<CompanyRetailerInput> = {
  name: null,
  territoryId: null,
  sendingLeads: true,
  receivingLeads: true,
  physicalAddress: null,
};

/** Company retailers (SPEC 2.4): visibility of PRODUCT.md section 3, rights and writable attributes of section 4. */
export class CompanyRetailerService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  list(args: ListArgs): Promise<Page<CompanyRetailer>> {
    authorize(this.caller, 'list', companyRetailerPolicy);
    // Plain rows with their embeds, read by the search's statement (company-retailer.repository.ts), not entities.
    return listPageRows(this.ctx, companyRetailerSearch, companyRetailerScope(this.caller), args, companyRetailerRows(this.ctx)) as unknown as Promise<
      Page<CompanyRetailer>
    >;
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<CompanyRetailer>> {
    authorize(this.caller, 'list', companyRetailerPolicy);
    return listConnection(this.ctx, companyRetailerSearch, CompanyRetailer, companyRetailerScope(this.caller), filter, paging);
  }

  async get(id: string): Promise<CompanyRetailer> {
    const cr = await findInScope(this.ctx, companyRetailerSearch, CompanyRetailer, companyRetailerScope(this.caller), id, 'CompanyRetailer');
    authorize(this.caller, 'show', companyRetailerPolicy);
    return cr;
  }

  /** Joins a company (the caller's) to a retailer; the pair is unique. */
  async create(input: CompanyRetailerInput): Promise<CompanyRetailer> {
    authorize(this.caller, 'create', companyRetailerPolicy);
    const data = this.permitted(input);
    const companyId = data.companyId ?? this.caller.companyId;
    authorize(this.caller, 'create', about(companyRetailerPolicy, { companyId }));
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const cr = new CompanyRetailer();
        cr.company = em.getReference(Company, companyId!);
        await this.assign(em, cr, data, true);
        em.persist(cr);
        await em.flush();
        return cr;
      },
      UNIQUE,
    );
  }

  /** PATCH; with `replace` (PUT) the writable attributes the body leaves out return to their defaults. */
  async update(id: string, input: CompanyRetailerInput, replace = false): Promise<CompanyRetailer> {
    const cr = await this.get(id);
    authorize(this.caller, 'update', companyRetailerPolicy);
    const sent = this.permitted(input);
    authorize(this.caller, 'update', about(companyRetailerPolicy, { companyId: cr.company.id, namedCompanyId: sent.companyId }));
    const data = replace ? this.withDefaults(sent) : sent;
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        await this.assign(em, cr, data, false);
        await em.flush();
        return cr;
      },
      UNIQUE,
    );
  }

  /** Halted (422) while company retailer locations exist under it. */
  async delete(id: string): Promise<void> {
    const cr = await this.get(id);
    authorize(this.caller, 'destroy', companyRetailerPolicy);
    await transactional(this.ctx.em, async (em) => {
      if (await em.count(CompanyRetailerLocation, { companyRetailer: cr.id })) throw destroyHalted();
      em.remove(cr);
      if (cr.physicalAddress) em.remove(em.getReference(Location, cr.physicalAddress.id));
      await flushDestroy(em);
    });
  }

  private permitted(input: CompanyRetailerInput): Partial<CompanyRetailerInput> {
    return permit(input, writableBy(companyRetailerWritable, this.caller), this.ctx.config.strictParams);
  }

  private withDefaults(sent: Partial<CompanyRetailerInput>): Partial<CompanyRetailerInput> {
    const allowed = writableBy(companyRetailerWritable, this.caller);
    const defaults = Object.fromEntries(Object.entries(REPLACED_DEFAULTS).filter(([k]) => allowed.includes(k as any)));
    return { ...defaults, ...sent };
  }

  private async assign(em: EntityManager, cr: CompanyRetailer, data: Partial<CompanyRetailerInput>, creating: boolean): Promise<void> {
    // The reference check (src/access/visibility.ts); `retailer_id` names any retailer: joining one is what a create is for.
    const unseen = await checkReferences(this.ctx, [{ field: 'territory_id', kind: territoryVisible, id: data.territoryId, unseen: 'invalid' }]);
    const v = new Validator();
    const set = new Assign(cr, v);
    if (creating || (data.retailerId !== undefined && data.retailerId !== cr.retailer?.id)) {
      await this.assignRetailer(em, cr, data.retailerId, creating, v);
    }
    set.text('name', data.name, 'name');
    set.flag('sendingLeads', data.sendingLeads, 'sending_leads');
    set.flag('receivingLeads', data.receivingLeads, 'receiving_leads');
    if (data.territoryId !== undefined) {
      const territory =
        data.territoryId === null || unseen.has('territory_id') ? null : await em.findOne(Territory, { id: data.territoryId, company: cr.company.id });
      if (data.territoryId !== null && !territory) v.add('territory_id', 'invalid', 'is not a territory of the company');
      else cr.territory = territory;
    }
    const contacts = new ContactWriter(em, this.ctx.geocoder, v);
    if (data.physicalAddress !== undefined) await contacts.address(cr, data.physicalAddress);
    v.throwIfAny();
    await contacts.geocodePending();
  }

  private async assignRetailer(em: EntityManager, cr: CompanyRetailer, retailerId: string | null | undefined, creating: boolean, v: Validator): Promise<void> {
    if (!retailerId) {
      v.add('retailer_id', 'blank');
      return;
    }
    const retailer = await em.findOne(Retailer, retailerId);
    if (!retailer) {
      v.add('retailer_id', 'invalid', 'is not a retailer');
    } else if (!creating && (await em.count(CompanyRetailerLocation, { companyRetailer: cr.id }))) {
      v.add('retailer_id', 'invalid', 'cannot change while the company retailer has locations');
    } else if (await em.count(CompanyRetailer, { company: cr.company.id, retailer: retailer.id, id: { $ne: cr.id } })) {
      v.add('retailer_id', 'taken');
    } else {
      cr.retailer = retailer;
    }
  }
}
