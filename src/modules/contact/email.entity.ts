import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Lead } from '../lead/lead.entity';

/** An email address: one of a lead's, or the general email of a store (referenced from it). */
@ObjectType({ description: 'An email address of a lead, or the general email of a store.' })
@Entity({ tableName: 'emails' })
export class Email extends BaseEntity {
  @Field(() => String, { description: 'The address, trimmed and lower-cased.' })
  @Property({ type: 'string' })
  email!: string;

  @Index()
  @ManyToOne(() => Lead, { nullable: true, deleteRule: 'cascade' })
  lead?: Lead | null;

  /** Insertion order: keeps the items of one write in the order they were sent. */
  @Property({ type: 'bigint', generated: 'by default as identity' })
  seq!: string & Opt;
}
