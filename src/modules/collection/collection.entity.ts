import { Entity, ManyToOne, Property, Unique, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';

@ObjectType({ description: "A named group of one company's products (`Product.collectionId`); the store locator filters by it. Seen by the platform operator and the company's users." })
@Entity({ tableName: 'collections' })
@Unique({ properties: ['company', 'name'] })
export class Collection extends BaseEntity {
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
