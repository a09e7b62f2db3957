import { BeforeCreate, BeforeUpdate, OnLoad, Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { formatPhone } from './phone';
import { BaseEntity } from '../../db/base.entity';
import { Lead } from '../lead/lead.entity';

/** A phone number stored in E.164, with the ISO 3166 country it was parsed for. */
@ObjectType({ description: 'A phone number of a lead, or the general phone number of a store.' })
@Entity({ tableName: 'phone_numbers' })
export class PhoneNumber extends BaseEntity {
  @Field(() => String, { description: 'The number in E.164 (`+15035550100`); as sent when it could not be parsed.' })
  @Property({ type: 'string' })
  phoneNumber!: string;

  @Field(() => String, { description: 'The ISO 3166 alpha-2 country the number was parsed for (default `US`).' })
  @Property({ type: 'string', length: 2, default: 'US' })
  countryCode: string & Opt = 'US';

  @Index()
  @ManyToOne(() => Lead, { nullable: true, deleteRule: 'cascade' })
  lead?: Lead | null;

  /** Insertion order: keeps the items of one write in the order they were sent. */
  @Property({ type: 'bigint', generated: 'by default as identity' })
  seq!: string & Opt;

  /**
   * International format (`+1 503 555 0123`; the stored value when it cannot be parsed), stored on
   * write; a number written around the application (a bulk load) gets it when loaded.
   */
  @Field(() => String, { description: 'The number in international format for display (`+1 503 555 0100`).' })
  @Property({ type: 'string', fieldName: 'formatted_international', nullable: true })
  formatted!: string & Opt;

  @BeforeCreate()
  @BeforeUpdate()
  @OnLoad()
  keepFormatted(): void {
    if (this.phoneNumber === undefined) return;
    const formatted = formatPhone(this.phoneNumber, this.countryCode);
    if (this.formatted !== formatted) this.formatted = formatted;
  }
}
