import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { Location } from '../contact/location.entity';

/** The relationship of one company with one retailer. */
@ObjectType({ description: "The relationship of one company with one retailer (contract 2.4): its territory, lead flags and address. Visible to the company's admin, the retailer's admin and whoever sees a store under it (PRODUCT.md 3)." })
// Scope keys are indexed with the list order: migrations/Migration20261124160000_list_order_indexes.ts.
@Entity({ tableName: 'company_retailers' })
@Unique({ properties: ['company', 'retailer'] })
export class CompanyRetailer extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @ManyToOne(() => Retailer, { deleteRule: 'cascade' })
  retailer!: Retailer;

  @Field(() => String, { nullable: true, description: "The company's name for this retailer; null when unnamed." })
  @Property({ type: 'string', nullable: true })
  name?: string | null;

  @Field(() => Boolean, { description: 'The company sends this retailer leads: its stores are listed in the store locator only while this and `receivingLeads` are on.' })
  @Property({ type: 'boolean', default: true })
  sendingLeads: boolean & Opt = true;

  @Field(() => Boolean, { description: "The retailer accepts leads: routing assigns leads to its stores only while this is on (and the store's own flag is)." })
  @Property({ type: 'boolean', default: true })
  receivingLeads: boolean & Opt = true;

  @Field(() => Boolean, { description: "A contract flag stored for the partner's own systems; the service does not act on it." })
  @Property({ type: 'boolean', default: false })
  isCc: boolean & Opt = false;

  @ManyToOne(() => Territory, { nullable: true, deleteRule: 'set null' })
  territory?: Territory | null;

  @Field(() => String, { nullable: true, description: "A free-form kind of relationship the company uses (e.g. `Dealer`); stored for the partner's own systems; the service does not act on it." })
  @Property({ type: 'string', nullable: true })
  type?: string | null;

  @ManyToOne(() => Location, { nullable: true, deleteRule: 'set null' })
  physicalAddress?: Location | null;

  @Field(() => ID, { description: 'The company.' })
  get companyId(): string & Opt {
    return this.company.id;
  }

  @Field(() => ID, { description: 'The retailer.' })
  get retailerId(): string & Opt {
    return this.retailer.id;
  }

  @Field(() => ID, { nullable: true, description: "The company's territory this retailer is in; null when none." })
  get territoryId(): string | null {
    return this.territory?.id ?? null;
  }
}
