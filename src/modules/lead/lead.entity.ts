import { Collection as OrmCollection, Entity, ManyToOne, OneToMany, Property, type Opt } from '@mikro-orm/core';
import { Field, ID, ObjectType } from 'type-graphql';
import { BaseEntity } from '../../db/base.entity';
import { Company } from '../company/company.entity';
import { Retailer } from '../retailer/retailer.entity';
import { CompanyRetailerLocation } from '../company-retailer-location/company-retailer-location.entity';
import { Location } from '../contact/location.entity';
import { Email } from '../contact/email.entity';
import { PhoneNumber } from '../contact/phone-number.entity';
import { User } from '../user/user.entity';
import { LeadActivity } from './lead-activity.entity';

/**
 * A sales prospect owned by a company or a retailer, optionally assigned to a CRL. Its list indexes end
 * in the list order and the scope keys kept of its assignee are trigger-written columns the entity does
 * not map (Migration20261123110000_lead_scope_keys).
 */
@ObjectType({ description: 'A sales prospect owned by a company or a retailer, with contacts, an address, a status, a timeline and an optional assignee store. Only the leads the caller sees are reachable (PRODUCT.md 3).' })
@Entity({ tableName: 'leads' })
export class Lead extends BaseEntity {
  @Field(() => String, { nullable: true, description: "The prospect's name." })
  @Property({ type: 'string', nullable: true })
  name?: string | null;

  @Field(() => String, { description: 'Any non-blank text up to 64 characters, default `New`; each change appends a `LeadActivity::StatusChange`.' })
  @Property({ type: 'string', length: 64, default: 'New' })
  status: string & Opt = 'New';

  @ManyToOne(() => Company, { nullable: true, deleteRule: 'cascade' })
  ownerCompany?: Company | null;

  @ManyToOne(() => Retailer, { nullable: true, deleteRule: 'cascade' })
  ownerRetailer?: Retailer | null;

  @ManyToOne(() => CompanyRetailerLocation, { nullable: true, deleteRule: 'restrict' })
  assignee?: CompanyRetailerLocation | null;

  @Field(() => String, { nullable: true, description: 'The kind of record `sourceId` names, e.g. `CompanyRetailerLocation`.' })
  @Property({ type: 'string', nullable: true })
  sourceType?: string | null;

  @Field(() => ID, { nullable: true, description: 'Where the lead came from, e.g. the store whose locator sent it.' })
  @Property({ type: 'uuid', nullable: true })
  sourceId?: string | null;

  @ManyToOne(() => Location, { nullable: true, deleteRule: 'set null' })
  location?: Location | null;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  createdBy?: User | null;

  @OneToMany(() => Email, (e) => e.lead, { orphanRemoval: true })
  emails = new OrmCollection<Email>(this);

  @OneToMany(() => PhoneNumber, (p) => p.lead, { orphanRemoval: true })
  phoneNumbers = new OrmCollection<PhoneNumber>(this);

  @OneToMany(() => LeadActivity, (a) => a.lead, { orphanRemoval: true })
  leadActivities = new OrmCollection<LeadActivity>(this);

  /** `Company` or `Retailer`: the caller's organisation when the lead was created. */
  get ownerType(): string & Opt {
    return this.ownerCompany ? 'Company' : 'Retailer';
  }

  get ownerId(): string & Opt {
    return (this.ownerCompany ?? this.ownerRetailer)!.id;
  }

  get assigneeId(): string | null {
    return this.assignee?.id ?? null;
  }

  get createdById(): string | null {
    return this.createdBy?.id ?? null;
  }
}
