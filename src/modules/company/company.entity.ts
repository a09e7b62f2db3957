import { Entity, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

@ObjectType({ description: 'A brand that sells through retailers: it owns products, territories, store types, company retailers and leads. Seen by the platform operator, its own users and the retailers it works with.' })
@Entity({ tableName: 'companies' })
export class Company extends BaseEntity {
  @Field(() => String, { description: "The company's name." })
  @Property({ type: 'string' })
  name!: string;
}
