import { Entity, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

@ObjectType()
@Entity({ tableName: 'companies' })
export class Company extends BaseEntity {
  @Field(() => String)
  @Property({ type: 'string' })
  name!: string;
}
