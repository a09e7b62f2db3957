import { Collection as OrmCollection, Entity, Index, ManyToOne, OneToMany, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Retailer } from '../retailer/retailer.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { Hour } from './hour.entity';

/** A physical store of a retailer. */
@ObjectType({ description: "A physical store of a retailer, shared by every company the retailer works with: its name, address, contacts and weekly hours. Seen by the platform operator, the retailer's admin, its store manager and the companies the retailer works with." })
@Entity({ tableName: 'retailer_locations' })
export class RetailerLocation extends BaseEntity {
  @Index()
  @ManyToOne(() => Retailer, { deleteRule: 'cascade' })
  retailer!: Retailer;

  @Field(() => String, { description: `The store's name, e.g. "Pearl District".` })
  @Property({ type: 'string' })
  name!: string;

  @Field(() => String, { nullable: true, description: "The store's web address." })
  @Property({ type: 'string', nullable: true })
  website?: string | null;

  @Field(() => String, { nullable: true, description: "The store's Google Places id." })
  @Property({ type: 'string', nullable: true })
  placeId?: string | null;

  /** IANA zone name. */
  @Field(() => String, { nullable: true, description: 'IANA zone name (`America/Los_Angeles`) its hours are read in; when null, the zone at its coordinates.' })
  @Property({ type: 'string', nullable: true })
  timezone?: string | null;

  @ManyToOne(() => Location, { nullable: true, deleteRule: 'set null' })
  physicalAddress?: Location | null;

  @ManyToOne(() => Email, { nullable: true, deleteRule: 'set null' })
  generalEmail?: Email | null;

  @ManyToOne(() => PhoneNumber, { nullable: true, deleteRule: 'set null' })
  generalPhoneNumber?: PhoneNumber | null;

  @OneToMany(() => Hour, (h) => h.retailerLocation)
  hours = new OrmCollection<Hour>(this);

  @Field(() => ID, { description: 'The retailer that owns the store.' })
  get retailerId(): string & Opt {
    return this.retailer.id;
  }
}
