import { Entity, Index, ManyToOne, Property, type Opt } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { BaseEntity } from '../../db/base.entity';
import { Lead } from '../lead/lead.entity';

/** A phone number stored in E.164, with the ISO 3166 country it was parsed for. */
@ObjectType()
@Entity({ tableName: 'phone_numbers' })
export class PhoneNumber extends BaseEntity {
  @Field(() => String)
  @Property({ type: 'string' })
  phoneNumber!: string;

  @Field(() => String)
  @Property({ type: 'string', length: 2, default: 'US' })
  countryCode: string & Opt = 'US';

  @Index()
  @ManyToOne(() => Lead, { nullable: true, deleteRule: 'cascade' })
  lead?: Lead | null;

  /** International format (`+1 503 555 0123`); the stored value when it cannot be parsed. */
  @Field(() => String)
  get formatted(): string & Opt {
    const parsed = parsePhoneNumberFromString(this.phoneNumber, this.countryCode as CountryCode);
    return parsed ? parsed.formatInternational() : this.phoneNumber;
  }
}
