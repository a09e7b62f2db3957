import { Entity, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';

@ObjectType({ description: 'A dealer business that owns stores (retailer locations) and works with many companies. Seen by the platform operator, its own users and the companies it works with.' })
@Entity({ tableName: 'retailers' })
export class Retailer extends BaseEntity {
  @Field(() => String, { description: "The retailer's business name." })
  @Property({ type: 'string' })
  name!: string;
}
