import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Territory } from '../territory/territory.entity';
import { Location } from '../contact/location.entity';

/** The relationship of one company with one retailer. */
@ObjectType()
// Scope keys are indexed with the list order: migrations/Migration20261124160000_list_order_indexes.ts.
@Entity({ tableName: 'company_retailers' })
@Unique({ properties: ['company', 'retailer'] })
export class CompanyRetailer extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @ManyToOne(() => Retailer, { deleteRule: 'cascade' })
  retailer!: Retailer;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  name?: string | null;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: true })
  sendingLeads: boolean & Opt = true;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: true })
  receivingLeads: boolean & Opt = true;

  @Field(() => Boolean)
  @Property({ type: 'boolean', default: false })
  isCc: boolean & Opt = false;

  @ManyToOne(() => Territory, { nullable: true, deleteRule: 'set null' })
  territory?: Territory | null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  type?: string | null;

  @ManyToOne(() => Location, { nullable: true, deleteRule: 'set null' })
  physicalAddress?: Location | null;

  @Field(() => ID)
  get companyId(): string & Opt {
    return this.company.id;
  }

  @Field(() => ID)
  get retailerId(): string & Opt {
    return this.retailer.id;
  }

  @Field(() => ID, { nullable: true })
  get territoryId(): string | null {
    return this.territory?.id ?? null;
  }
}
