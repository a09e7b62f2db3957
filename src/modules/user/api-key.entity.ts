import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { User } from './user.entity';

/** An API key of a user. Only the SHA-256 of the key is stored; the plain key is shown once. */
@ObjectType({ description: 'An API key of a user: who it acts as and when it was last used. Only a hash of the key is stored; the key itself is shown once, by `generateApiKey`.' })
@Entity({ tableName: 'api_keys' })
export class ApiKey extends BaseEntity {
  @Index()
  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  /** The first characters of the key, to tell keys apart in listings. */
  @Field(() => String, { description: 'The first characters of the key, to tell keys apart (the rest is never shown again).' })
  @Property({ type: 'string' })
  prefix!: string;

  @Property({ type: 'string', length: 64, unique: true })
  keyHash!: string;

  @Field(() => String, { nullable: true, description: 'The note given when it was generated; null when none.' })
  @Property({ type: 'string', nullable: true })
  label?: string | null;

  @Field(() => Date, { nullable: true, description: 'The last request it authenticated (ISO 8601 date-time, UTC; updated at most about once a minute); null when never used.' })
  @Property({ type: 'datetime', nullable: true })
  lastUsedAt?: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was revoked; null while it works. A revoked key answers 401.' })
  @Property({ type: 'datetime', nullable: true })
  revokedAt?: Date | null;

  @Field(() => ID, { description: 'The user the key acts as.' })
  get userId(): string & Opt {
    return this.user.id;
  }
}
