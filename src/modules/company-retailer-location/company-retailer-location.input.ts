import { Field, Float, ID, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { EmailInput, LocationInput, PhoneNumberInput } from '../contact/contact.input';
import { HourInput } from '../retailer-location/hours';

/** PRODUCT.md section 1 delivery area item. */
@InputType()
export class DeliveryAreaInput {
  @Field(() => ID, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  postalCode?: string | null;

  @Field(() => String, { nullable: true })
  country?: string | null;

  @Field(() => Boolean, { nullable: true })
  _destroy?: boolean | null;
}

/**
 * SPEC 2.5 / 4.4: the CRL's attributes and its nested objects (sent at the top level of a REST body).
 * Each role writes the subset of SPEC 2.5's table. Address, email, phone number and hours are written to
 * the linked retailer location when there is one.
 */
@InputType()
export class CompanyRetailerLocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "The company retailer's company (the caller's)." })
  companyId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create.' })
  companyRetailerId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A location of the company retailer's retailer." })
  retailerLocationId?: string | null;

  @Field(() => String, { nullable: true, description: "Blank falls back to the retailer location's name." })
  name?: string | null;

  @Field(() => Boolean, { nullable: true })
  sendingLeads?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  receivingLeads?: boolean | null;

  @Field(() => Float, { nullable: true, description: 'Miles, >= 0.' })
  deliveryRadius?: number | null;

  @Field(() => String, { nullable: true })
  website?: string | null;

  @Field(() => Boolean, { nullable: true })
  recordCalls?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  maskEmails?: boolean | null;

  @Field(() => String, { nullable: true })
  placeId?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA zone name.' })
  timezone?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A territory of the company; null falls back to the company retailer's." })
  territoryId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A store type of the company.' })
  companyStoreTypeId?: string | null;

  @Field(() => LocationInput, { nullable: true, description: 'Null removes the address.' })
  physicalAddress?: LocationInput | null;

  @Field(() => EmailInput, { nullable: true })
  generalEmail?: EmailInput | null;

  @Field(() => PhoneNumberInput, { nullable: true })
  generalPhoneNumber?: PhoneNumberInput | null;

  @Field(() => [DeliveryAreaInput], { nullable: true })
  deliveryAreas?: DeliveryAreaInput[] | null;

  @Field(() => [HourInput], { nullable: true })
  retailerLocationHours?: HourInput[] | null;
}

export type CrlAttribute = Exclude<keyof CompanyRetailerLocationInput, symbol>;
