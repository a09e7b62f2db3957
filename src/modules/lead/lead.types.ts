import { Field, ID, ObjectType } from 'type-graphql';
import { PageType } from '../../graphql/common';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';

/** A lead's assignee: always a company retailer location for now (SPEC 2.1 "polymorphic"). */
@ObjectType({ description: 'The store a lead is assigned to: a company retailer location the caller sees.' })
export class LeadAssignee {
  @Field(() => ID, { description: "The company retailer location's id." })
  id!: string;

  @Field(() => String, { description: '`CompanyRetailerLocation`.' })
  type!: string;

  @Field(() => String, { nullable: true, description: "The CRL's name, else its retailer location's name." })
  name!: string | null;

  @Field(() => ID, { description: 'The company retailer it belongs to.' })
  companyRetailerId!: string;

  @Field(() => ID, { nullable: true, description: 'The retailer location (the physical store) it links; null for a location without one.' })
  retailerLocationId!: string | null;
}

/** What a create merged into an existing lead (PRODUCT.md section 5); also the data of its merge note. */
@ObjectType({ description: 'What a createLead merged into this existing lead (PRODUCT.md 5).' })
export class LeadMerge {
  @Field(() => [String], { description: 'Emails the create added.' })
  emailsAdded!: string[];

  @Field(() => [String], { description: 'Phone numbers (E.164) the create added.' })
  phoneNumbersAdded!: string[];

  @Field(() => Boolean, { description: 'The lead had no name and took the sent one.' })
  nameFilled!: boolean;

  @Field(() => Boolean, { description: 'The lead had no location and took the sent one.' })
  locationFilled!: boolean;

  @Field(() => Boolean, { description: 'The sent assignee replaced the previous one.' })
  assigneeChanged!: boolean;

  @Field(() => Number, { description: 'Activities the create appended to the timeline.' })
  activitiesAdded!: number;
}

export const LeadPage = PageType(Lead, 'LeadPage');
export const LeadActivityPage = PageType(LeadActivity, 'LeadActivityPage');
