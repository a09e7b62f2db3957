import { FlushMode } from '@mikro-orm/core';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { ListArgs, Page } from '../../graphql/common';
import { destroyHalted, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { MAX_DELIVERY_RADIUS_MILES } from '../../limits';
import { Assign } from '../../db/assign';
import { about, authorize, writableBy } from '../../access/policy';
import { permit } from '../../access/permit';
import { checkReferences } from '../../access/visibility';
import { companyRetailerVisible } from '../company-retailer/company-retailer.search';
import { companyStoreTypeVisible } from '../company-store-type/company-store-type.search';
import { retailerLocationVisible } from '../retailer-location/retailer-location.search';
import { territoryVisible } from '../territory/territory.search';
import { isTimeZone } from '../../geo/time-zone-name';
import { findInScope, listPageRows } from '../../search/list';
import { crlRows } from './company-retailer-location.repository';
import { Territory } from '../territory/territory.entity';
import { CompanyStoreType } from '../company-store-type/company-store-type.entity';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { writeHours } from '../retailer-location/hours';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { ContactWriter, type ContactHolder } from '../contact/contact.writes';
import { Lead } from '../lead/lead.entity';
import { CompanyRetailerLocation } from './company-retailer-location.entity';
import type { CompanyRetailerLocationInput } from './company-retailer-location.input';
import { crlPolicy, crlScope, crlWritable, territoryOfNewCrl } from './company-retailer-location.policy';
import { crlSearch } from './company-retailer-location.search';
import { writeDeliveryAreas } from './delivery-areas';
import { overlapRefused, writeHourExceptions } from './hour-exceptions';

type Data = Partial<CompanyRetailerLocationInput>;

const RL_INVALID = "is not a location of the company retailer's retailer";

const UNIQUE = {
  crl_company_retailer_retailer_location_unique: 'retailer_location_id',
  hours_retailer_location_day_unique: 'retailer_location_hours.day',
  hours_crl_day_unique: 'retailer_location_hours.day',
};

/**
 * Company retailer locations (SPEC 2.5, 4.4): visibility of PRODUCT.md section 3 (`crlScope`), rights of
 * section 4, and SPEC 2.5's writable attributes per role. Contact objects and hours are read and written
 * on the linked retailer location when there is one (PRODUCT.md section 1).
 */
export class CompanyRetailerLocationService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  /** `stamps`: whether the operation asks for an embedded row's timestamps; `exceptions`: for the dated exceptions (`crlRows`). */
  list(args: ListArgs, stamps = true, exceptions = true): Promise<Page<CompanyRetailerLocation>> {
    authorize(this.caller, 'list', crlPolicy);
    // Plain rows with their embeds, read by the search's statement (company-retailer-location.repository.ts), not entities.
    return listPageRows(this.ctx, crlSearch, crlScope(this.caller), args, crlRows(stamps, exceptions)) as unknown as Promise<Page<CompanyRetailerLocation>>;
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<CompanyRetailerLocation>> {
    authorize(this.caller, 'list', crlPolicy);
    return listConnection(this.ctx, crlSearch, CompanyRetailerLocation, crlScope(this.caller), filter, paging);
  }

  async get(id: string): Promise<CompanyRetailerLocation> {
    const crl = await findInScope(this.ctx, crlSearch, CompanyRetailerLocation, crlScope(this.caller), id, 'CompanyRetailerLocation');
    authorize(this.caller, 'show', crlPolicy);
    return crl;
  }

  /** A territory manager's new CRL is in its territory; a retailer manager creates under its company retailers only. */
  async create(input: CompanyRetailerLocationInput): Promise<CompanyRetailerLocation> {
    authorize(this.caller, 'create', crlPolicy);
    const data = this.permitted(input);
    if (!data.companyRetailerId) new Validator().add('company_retailer_id', 'blank').throwIfAny();
    const unseen = await this.checkReferences(data, true);
    return overlapRefused(() => transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const cr = await this.reachableCompanyRetailer(em, data.companyRetailerId!);
        authorize(this.caller, 'create', about(crlPolicy, { companyId: cr.company.id, namedCompanyId: data.companyId }));
        const crl = new CompanyRetailerLocation();
        crl.company = cr.company;
        crl.companyRetailer = cr;
        const territoryId = territoryOfNewCrl(this.caller);
        if (territoryId) crl.territory = em.getReference(Territory, territoryId);
        await this.assign(em, crl, data, true, unseen);
        em.persist(crl);
        await em.flush();
        return crl;
      },
      UNIQUE,
    ));
  }

  async update(id: string, input: CompanyRetailerLocationInput): Promise<CompanyRetailerLocation> {
    const crl = await this.get(id);
    authorize(this.caller, 'update', crlPolicy);
    const data = this.permitted(input);
    authorize(this.caller, 'update', about(crlPolicy, { companyId: crl.company.id, namedCompanyId: data.companyId }));
    const unseen = await this.checkReferences(data, data.companyRetailerId != null && data.companyRetailerId !== crl.companyRetailer.id);
    return overlapRefused(() => transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        if (data.companyRetailerId != null && data.companyRetailerId !== crl.companyRetailer.id) {
          crl.companyRetailer = await this.reachableCompanyRetailer(em, data.companyRetailerId);
        }
        await this.assign(em, crl, data, false, unseen);
        await em.flush();
        return crl;
      },
      UNIQUE,
    ));
  }

  /** Halted (422) while leads are assigned to it. Its own address, email and phone number go with it. */
  async delete(id: string): Promise<void> {
    const crl = await this.get(id);
    authorize(this.caller, 'destroy', crlPolicy);
    await transactional(this.ctx.em, async (em) => {
      if (await em.count(Lead, { assignee: crl.id })) throw destroyHalted();
      em.remove(crl);
      if (crl.physicalAddress) em.remove(em.getReference(Location, crl.physicalAddress.id));
      if (crl.generalEmail) em.remove(em.getReference(Email, crl.generalEmail.id));
      if (crl.generalPhoneNumber) em.remove(em.getReference(PhoneNumber, crl.generalPhoneNumber.id));
      await flushDestroy(em);
    });
  }

  private permitted(input: CompanyRetailerLocationInput): Data {
    return permit(input, writableBy(crlWritable, this.caller), this.ctx.config.strictParams);
  }

  /**
   * The reference check (src/access/visibility.ts): a company retailer the caller does not see is 403,
   * as for one that does not exist; a store, territory or store type it does not see is 422 on the
   * field, worded as for one that does not exist. Returns the fields of those 422s.
   */
  private checkReferences(data: Data, companyRetailerSent: boolean): Promise<Set<string>> {
    return checkReferences(this.ctx, [
      { field: 'company_retailer_id', kind: companyRetailerVisible, id: companyRetailerSent ? data.companyRetailerId : null, unseen: 'forbidden' },
      { field: 'retailer_location_id', kind: retailerLocationVisible, id: data.retailerLocationId, unseen: 'invalid' },
      { field: 'territory_id', kind: territoryVisible, id: data.territoryId, unseen: 'invalid' },
      { field: 'company_store_type_id', kind: companyStoreTypeVisible, id: data.companyStoreTypeId, unseen: 'invalid' },
    ]);
  }

  /** A company retailer of the caller's company, seen by it, that it may put stores under; anything else is 403. */
  private async reachableCompanyRetailer(em: EntityManager, id: string): Promise<CompanyRetailer> {
    const cr = await em.findOne(CompanyRetailer, id);
    authorize(this.caller, 'place', about(crlPolicy, { companyRetailer: cr && { id: cr.id, companyId: cr.company.id } }));
    return cr!;
  }

  private async assign(em: EntityManager, crl: CompanyRetailerLocation, data: Data, creating: boolean, unseen: Set<string>): Promise<void> {
    const v = new Validator();
    const set = new Assign(crl, v);
    const companyId = crl.company.id;

    const rlChanged = data.retailerLocationId !== undefined && data.retailerLocationId !== (crl.retailerLocation?.id ?? null);
    if (rlChanged || (!creating && data.companyRetailerId != null)) {
      const id = rlChanged ? data.retailerLocationId! : (crl.retailerLocation?.id ?? null);
      if (rlChanged && unseen.has('retailer_location_id')) v.add('retailer_location_id', 'invalid', RL_INVALID);
      else await this.assignRetailerLocation(em, crl, id, v);
    }
    set.text('name', data.name, 'name');
    set.text('website', data.website, 'website');
    set.text('placeId', data.placeId, 'place_id');
    if (data.timezone !== undefined) {
      const zone = data.timezone?.trim() || null;
      if (zone && !isTimeZone(zone)) v.add('timezone', 'invalid', 'is not an IANA time zone');
      else crl.timezone = zone;
    }
    set.number('deliveryRadius', data.deliveryRadius, 'delivery_radius', 0, false, MAX_DELIVERY_RADIUS_MILES);
    set.flag('sendingLeads', data.sendingLeads, 'sending_leads');
    set.flag('receivingLeads', data.receivingLeads, 'receiving_leads');
    set.flag('recordCalls', data.recordCalls, 'record_calls');
    set.flag('maskEmails', data.maskEmails, 'mask_emails');
    if (data.territoryId !== undefined) {
      const territory = data.territoryId && !unseen.has('territory_id') && (await em.findOne(Territory, { id: data.territoryId, company: companyId }));
      if (data.territoryId && !territory) v.add('territory_id', 'invalid', 'is not a territory of the company');
      else crl.territory = territory || null;
    }
    if (data.companyStoreTypeId !== undefined) {
      const type =
        data.companyStoreTypeId && !unseen.has('company_store_type_id') && (await em.findOne(CompanyStoreType, { id: data.companyStoreTypeId, company: companyId }));
      if (data.companyStoreTypeId && !type) v.add('company_store_type_id', 'invalid', 'is not a store type of the company');
      else crl.companyStoreType = type || null;
    }

    // Contact objects and hours live on the retailer location when there is one.
    const rl = crl.retailerLocation ? await em.findOneOrFail(RetailerLocation, crl.retailerLocation.id) : null;
    const holder: ContactHolder = rl ?? crl;
    const contacts = new ContactWriter(em, this.ctx.geocoder, v);
    if (data.physicalAddress !== undefined) await contacts.address(holder, data.physicalAddress);
    if (data.generalEmail !== undefined) await contacts.email(holder, data.generalEmail);
    if (data.generalPhoneNumber !== undefined) await contacts.phone(holder, data.generalPhoneNumber);
    if (data.retailerLocationHours) {
      const owner = rl ? { retailerLocation: rl } : { companyRetailerLocation: crl };
      await writeHours(em, owner, data.retailerLocationHours, v, { ownerIsNew: !rl && creating });
    }
    if (data.hourExceptions) {
      const owner = rl ? { retailerLocation: rl } : { companyRetailerLocation: crl };
      await writeHourExceptions(em, owner, data.hourExceptions, v, { ownerIsNew: !rl && creating });
    }
    if (data.deliveryAreas) await writeDeliveryAreas(em, crl, data.deliveryAreas, v, creating);
    v.throwIfAny();
    await contacts.geocodePending();
  }

  /** A location of the company retailer's retailer, linked to at most one CRL of that company retailer. */
  private async assignRetailerLocation(em: EntityManager, crl: CompanyRetailerLocation, id: string | null, v: Validator): Promise<void> {
    if (id === null) {
      crl.retailerLocation = null;
      return;
    }
    const cr = await em.findOneOrFail(CompanyRetailer, crl.companyRetailer.id);
    const rl = await em.findOne(RetailerLocation, { id, retailer: cr.retailer.id });
    if (!rl) {
      v.add('retailer_location_id', 'invalid', RL_INVALID);
    } else if (await em.count(CompanyRetailerLocation, { companyRetailer: crl.companyRetailer.id, retailerLocation: rl.id, id: { $ne: crl.id } })) {
      v.add('retailer_location_id', 'taken');
    } else {
      crl.retailerLocation = rl;
    }
  }
}
