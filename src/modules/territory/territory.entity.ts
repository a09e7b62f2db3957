import { Entity, Index, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';

@ObjectType({ description: "A named region of one company; territory managers see the stores in theirs. Seen by the platform operator and the company's users." })
@Entity({ tableName: 'territories' })
@Unique({ properties: ['company', 'name'] })
export class Territory extends BaseEntity {
  @ManyToOne(() => Company, { deleteRule: 'cascade' })
  company!: Company;

  @Field(() => String, { description: 'The name, unique within the company.' })
  @Property({ type: 'string' })
  name!: string;

  @Field(() => ID, { description: 'The company it belongs to.' })
  get companyId(): string & Opt {
    return this.company.id;
  }
}
