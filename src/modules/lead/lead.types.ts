import { Field, ID, ObjectType } from 'type-graphql';
import { PageType } from '../../graphql/common';
import { Lead } from './lead.entity';
import { LeadActivity } from './lead-activity.entity';

/** A lead's assignee: always a company retailer location for now (SPEC 2.1 "polymorphic"). */
@ObjectType()
export class LeadAssignee {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: '`CompanyRetailerLocation`.' })
  type!: string;

  @Field(() => String, { nullable: true, description: "The CRL's name, else its retailer location's name." })
  name!: string | null;

  @Field(() => ID)
  companyRetailerId!: string;

  @Field(() => ID, { nullable: true })
  retailerLocationId!: string | null;
}

export const LeadPage = PageType(Lead, 'LeadPage');
export const LeadActivityPage = PageType(LeadActivity, 'LeadActivityPage');
