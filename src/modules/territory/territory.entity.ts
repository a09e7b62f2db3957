import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';

@ObjectType()
@Entity({ tableName: 'territories' })
@Unique({ properties: ['company', 'name'] })
export class Territory extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Field(() => String)
  @Property({ type: 'string' })
  name!: string;

  @Field(() => ID)
  get companyId(): string & Opt {
    return this.company.id;
  }
}
