import { Entity, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';

/** A store tier of one company; `boost` lifts its stores in the store locator. */
@ObjectType()
@Entity({ tableName: 'company_store_types' })
@Unique({ properties: ['company', 'name'] })
export class CompanyStoreType extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Field(() => String)
  @Property({ type: 'string' })
  name!: string;

  @Field(() => Float)
  @Property({ type: 'double', default: 0 })
  boost: number & Opt = 0;

  @Field(() => ID)
  get companyId(): string & Opt {
    return this.company.id;
  }
}
