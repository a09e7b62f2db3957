import { FlushMode } from '@mikro-orm/core';
import { listConnection, type Connection, type ConnectionArgs, type ConnectionFilterArgs } from '../../graphql/connection';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import type { ListArgs, Page } from '../../graphql/common';
import { destroyHalted, Validator } from '../../errors';
import { flushDestroy, transactional } from '../../db/write';
import { Assign } from '../../db/assign';
import { about, authorize } from '../../access/policy';
import { isTimeZone } from '../../geo/time-zone-name';
import { findInScope, listPage } from '../../search/list';
import { Retailer } from '../retailer/retailer.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { ContactWriter } from '../contact/contact.writes';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from './retailer-location.entity';
import type { RetailerLocationInput } from './retailer-location.input';
import { retailerLocationSearch } from './retailer-location.search';
import { retailerLocationPolicy, retailerLocationScope } from './retailer-location.policy';
import { writeHours } from './hours';

const UNIQUE = { hours_retailer_location_day_unique: 'hours.day' };

/** Network management of retailer locations (stores): address, contact, hours and time zone. */
export class RetailerLocationService {
  constructor(private readonly ctx: Context) {}

  private get caller() {
    return this.ctx.caller!;
  }

  list(args: ListArgs): Promise<Page<RetailerLocation>> {
    return listPage(this.ctx, retailerLocationSearch, RetailerLocation, retailerLocationScope(this.caller), args);
  }

  /** The same list by Relay cursors (keyset). */
  connection(filter: ConnectionFilterArgs, paging: ConnectionArgs): Promise<Connection<RetailerLocation>> {
    return listConnection(this.ctx, retailerLocationSearch, RetailerLocation, retailerLocationScope(this.caller), filter, paging);
  }

  get(id: string): Promise<RetailerLocation> {
    return findInScope(this.ctx, retailerLocationSearch, RetailerLocation, retailerLocationScope(this.caller), id, 'RetailerLocation');
  }

  async create(input: RetailerLocationInput): Promise<RetailerLocation> {
    authorize(this.caller, 'create', retailerLocationPolicy);
    // A retailer admin's own retailer by default (the operator has none: it names one).
    const retailerId = input.retailerId ?? this.caller.retailerId;
    authorize(this.caller, 'create', about(retailerLocationPolicy, { retailerId }));
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const v = new Validator();
        const retailer = retailerId ? await em.findOne(Retailer, retailerId) : null;
        if (!retailer) v.add('retailer_id', retailerId ? 'invalid' : 'blank');
        if (input.name === undefined) v.add('name', 'blank');
        const rl = new RetailerLocation();
        if (retailer) rl.retailer = retailer;
        await this.assign(em, rl, input, v, true);
        em.persist(rl);
        await em.flush();
        return rl;
      },
      UNIQUE,
    );
  }

  async update(id: string, input: RetailerLocationInput): Promise<RetailerLocation> {
    const rl = await this.get(id);
    authorize(this.caller, 'update', retailerLocationPolicy);
    return transactional(
      this.ctx.em,
      async (em) => {
        em.setFlushMode(FlushMode.COMMIT);
        const v = new Validator();
        if (input.retailerId !== undefined && input.retailerId !== rl.retailer.id) v.add('retailer_id', 'invalid', 'cannot change');
        await this.assign(em, rl, input, v, false);
        await em.flush();
        return rl;
      },
      UNIQUE,
    );
  }

  /** Halted while company retailer locations link it. */
  async delete(id: string): Promise<void> {
    const rl = await this.get(id);
    authorize(this.caller, 'destroy', retailerLocationPolicy);
    await transactional(this.ctx.em, async (em) => {
      if (await em.count(CompanyRetailerLocation, { retailerLocation: rl.id })) throw destroyHalted();
      em.remove(rl);
      if (rl.physicalAddress) em.remove(em.getReference(Location, rl.physicalAddress.id));
      if (rl.generalEmail) em.remove(em.getReference(Email, rl.generalEmail.id));
      if (rl.generalPhoneNumber) em.remove(em.getReference(PhoneNumber, rl.generalPhoneNumber.id));
      await flushDestroy(em);
    });
  }

  private async assign(em: EntityManager, rl: RetailerLocation, input: RetailerLocationInput, v: Validator, creating: boolean): Promise<void> {
    const set = new Assign(rl, v);
    set.text('name', input.name, 'name', true);
    set.text('website', input.website, 'website');
    set.text('placeId', input.placeId, 'place_id');
    if (input.timezone !== undefined) {
      const zone = input.timezone?.trim() || null;
      if (zone && !isTimeZone(zone)) v.add('timezone', 'invalid', 'is not an IANA time zone');
      else rl.timezone = zone;
    }
    const contacts = new ContactWriter(em, this.ctx.geocoder, v);
    if (input.physicalAddress !== undefined) await contacts.address(rl, input.physicalAddress);
    if (input.generalEmail !== undefined) await contacts.email(rl, input.generalEmail);
    if (input.generalPhoneNumber !== undefined) await contacts.phone(rl, input.generalPhoneNumber);
    if (input.hours) await writeHours(em, { retailerLocation: rl }, input.hours, v, { ownerIsNew: creating, field: 'hours' });
    v.throwIfAny();
    await contacts.geocodePending();
  }
}
