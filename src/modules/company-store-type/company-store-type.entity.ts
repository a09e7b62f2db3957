import { Entity, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';

/** A store tier of one company; `boost` lifts its stores in the store locator. */
@ObjectType({ description: `A named store tier of one company (e.g. "Flagship", "Dealer"); stores of a higher \`boost\` rank first in the store locator (PRODUCT.md 7). Seen by the platform operator and the company's users.` })
@Entity({ tableName: 'company_store_types' })
@Unique({ properties: ['company', 'name'] })
export class CompanyStoreType extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Field(() => String, { description: "The name, unique within the company; the store locator's `store_type`." })
  @Property({ type: 'string' })
  name!: string;

  @Field(() => Float, { description: "Added to a store's distance score in the store locator, >= 0 (default 0): integer steps make tiers." })
  @Property({ type: 'double', default: 0 })
  boost: number & Opt = 0;

  @Field(() => ID, { description: 'The company it belongs to.' })
  get companyId(): string & Opt {
    return this.company.id;
  }
}
