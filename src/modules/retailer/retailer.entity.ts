import { Entity, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

@ObjectType()
@Entity({ tableName: 'retailers' })
export class Retailer extends BaseEntity {
  @Field(() => String)
  @Property({ type: 'string' })
  name!: string;
}
