import { randomUUID } from 'node:crypto';
import { PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';

/** id and timestamps of every table; subclasses inherit the GraphQL fields too. */
@ObjectType()
export abstract class BaseEntity {
  @Field(() => ID, { description: "The record's id, a UUID; stable for its lifetime." })
  @PrimaryKey({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  id: string & Opt = randomUUID();

  @Field(() => Date, { description: 'When the record was created (ISO 8601 date-time, UTC).' })
  @Property({ type: 'datetime', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Field(() => Date, { description: 'When the record last changed (ISO 8601 date-time, UTC).' })
  @Property({ type: 'datetime', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
