import { Collection as OrmCollection, Entity, Index, ManyToOne, OneToMany, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { CompanyRetailer } from '../company-retailer/company-retailer.entity';
import { RetailerLocation } from '../retailer-location/retailer-location.entity';
import { Territory } from '../territory/territory.entity';
import { CompanyStoreType } from '../company-store-type/company-store-type.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Hour } from '../retailer-location/hour.entity';
import { DeliveryArea } from './delivery-area.entity';

/**
 * The per-store join of a company retailer and a retailer location: the routing target of leads.
 * Address, email, phone and hours live on the linked retailer location when there is one.
 */
@ObjectType({ description: "One store of a retailer as one company sees it (contract 2.5): the target leads are assigned and routed to, and a store locator result. Address, email, phone and hours are the linked retailer location's when there is one." })
// Scope keys are indexed with the list order: migrations/Migration20261124160000_list_order_indexes.ts.
@Entity({ tableName: 'company_retailer_locations' })
@Unique({ name: 'crl_company_retailer_retailer_location_unique', properties: ['companyRetailer', 'retailerLocation'] })
export class CompanyRetailerLocation extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @ManyToOne(() => CompanyRetailer, { deleteRule: 'restrict' })
  companyRetailer!: CompanyRetailer;

  @ManyToOne(() => RetailerLocation, { nullable: true, deleteRule: 'set null' })
  retailerLocation?: RetailerLocation | null;

  @Property({ type: 'string', nullable: true })
  name?: string | null;

  @Field(() => Boolean, { description: 'Listed in the store locator while this and `receivingLeads` are on (and it has a placed address).' })
  @Property({ type: 'boolean', default: true })
  sendingLeads: boolean & Opt = true;

  @Field(() => Boolean, { description: "Accepts leads: routing assigns leads to it only while this and its company retailer's flag are on." })
  @Property({ type: 'boolean', default: true })
  receivingLeads: boolean & Opt = true;

  /** Miles. */
  @Field(() => Float, { nullable: true, description: 'How far the store delivers, in miles; the `DeliveryRadius` routing rule uses it. Null: no radius.' })
  @Property({ type: 'double', nullable: true })
  deliveryRadius?: number | null;

  @Field(() => String, { nullable: true, description: "The store's web address for this company; when blank the store locator shows the retailer location's." })
  @Property({ type: 'string', nullable: true })
  website?: string | null;

  @Field(() => Boolean, { description: "Calls to the store are recorded; stored for the partner's own systems; the service does not act on it." })
  @Property({ type: 'boolean', default: false })
  recordCalls: boolean & Opt = false;

  @Field(() => Boolean, { description: "Shoppers' emails are masked for the store; stored for the partner's own systems; the service does not act on it." })
  @Property({ type: 'boolean', default: false })
  maskEmails: boolean & Opt = false;

  @Field(() => String, { nullable: true, description: "The store's Google Places id; when blank the store locator shows the retailer location's." })
  @Property({ type: 'string', nullable: true })
  placeId?: string | null;

  /** IANA zone name. */
  @Field(() => String, { nullable: true, description: 'IANA zone name (`America/Los_Angeles`) its hours are read in; when null, the zone at its coordinates (UTC without them).' })
  @Property({ type: 'string', nullable: true })
  timezone?: string | null;

  @ManyToOne(() => Territory, { nullable: true, deleteRule: 'set null' })
  territory?: Territory | null;

  @Index()
  @ManyToOne(() => CompanyStoreType, { nullable: true, deleteRule: 'set null' })
  companyStoreType?: CompanyStoreType | null;

  @ManyToOne(() => Location, { nullable: true, deleteRule: 'set null' })
  physicalAddress?: Location | null;

  @ManyToOne(() => Email, { nullable: true, deleteRule: 'set null' })
  generalEmail?: Email | null;

  @ManyToOne(() => PhoneNumber, { nullable: true, deleteRule: 'set null' })
  generalPhoneNumber?: PhoneNumber | null;

  @OneToMany(() => DeliveryArea, (d) => d.companyRetailerLocation)
  deliveryAreas = new OrmCollection<DeliveryArea>(this);

  @OneToMany(() => Hour, (h) => h.companyRetailerLocation)
  hours = new OrmCollection<Hour>(this);

  @Field(() => ID, { description: 'The company.' })
  get companyId(): string & Opt {
    return this.company.id;
  }

  @Field(() => ID, { description: 'The company retailer it belongs to.' })
  get companyRetailerId(): string & Opt {
    return this.companyRetailer.id;
  }

  @Field(() => ID, { nullable: true, description: 'The retailer location (physical store) it links; null when it has none.' })
  get retailerLocationId(): string | null {
    return this.retailerLocation?.id ?? null;
  }

  /** Its own territory; GraphQL serves the effective one (falling back to the company retailer's). */
  get territoryId(): string | null {
    return this.territory?.id ?? null;
  }

  @Field(() => ID, { nullable: true, description: "The company's store type (tier) it has; null when none." })
  get companyStoreTypeId(): string | null {
    return this.companyStoreType?.id ?? null;
  }
}
