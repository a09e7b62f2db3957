import { randomUUID } from 'node:crypto';
import { PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';

/** id and timestamps of every table; subclasses inherit the GraphQL fields too. */
@ObjectType()
export abstract class BaseEntity {
  @Field(() => ID)
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id: string & Opt = randomUUID();

  @Field(() => Date)
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date)
  @Property({ type: 'datetime', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
