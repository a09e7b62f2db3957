import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { User } from './user.entity';

/** An API key of a user. Only the SHA-256 of the key is stored; the plain key is shown once. */
@ObjectType()
@Entity({ tableName: 'api_keys' })
export class ApiKey extends BaseEntity {
  @Index()
  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  /** The first characters of the key, to tell keys apart in listings. */
  @Field(() => String)
  @Property({ type: 'string' })
  prefix!: string;

  @Property({ type: 'string', length: 64, unique: true })
  keyHash!: string;

  @Field(() => String, { nullable: true })
  @Property({ type: 'string', nullable: true })
  label?: string | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'datetime', nullable: true })
  lastUsedAt?: Date | null;

  @Field(() => Date, { nullable: true })
  @Property({ type: 'datetime', nullable: true })
  revokedAt?: Date | null;

  @Field(() => ID)
  get userId(): string & Opt {
    return this.user.id;
  }
}
