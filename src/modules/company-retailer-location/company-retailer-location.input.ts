import { Field, Float, ID, InputType } from 'type-graphql';
import { UUIDScalar } from '../../graphql/common';
import { EmailInput, LocationInput, PhoneNumberInput } from '../contact/contact.input';
import { HourInput } from '../retailer-location/hours';
import { HourExceptionInput } from './hour-exceptions';

/** PRODUCT.md section 1 delivery area item. */
@InputType({ description: 'One delivery area of a store. Without `id` it is added; with `id` that area is changed, or removed with `_destroy: true`.' })
export class DeliveryAreaInput {
  @Field(() => ID, { nullable: true, description: 'A delivery area of this store to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'The postal code; required for a new area.' })
  postalCode?: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 3166 alpha-2 country of the postal code.' })
  country?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this delivery area.' })
  _destroy?: boolean | null;
}

/**
 * SPEC 2.5 / 4.4: the CRL's attributes and its nested objects (sent at the top level of a REST body).
 * Each role writes the subset of SPEC 2.5's table. Address, email, phone number and hours are written to
 * the linked retailer location when there is one.
 */
@InputType({ description: "A company retailer location's writable attributes (contract 2.5 and 4.4); each role writes only its column of contract 2.5, other attributes are dropped. Address, email, phone and hours are written to the linked retailer location when there is one." })
export class CompanyRetailerLocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "The company retailer's company (the caller's)." })
  companyId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create.' })
  companyRetailerId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A location of the company retailer's retailer." })
  retailerLocationId?: string | null;

  @Field(() => String, { nullable: true, description: "Blank falls back to the retailer location's name." })
  name?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'List the store in the store locator (with `receivingLeads`). Default true.' })
  sendingLeads?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Accept routed and assigned leads. Default true.' })
  receivingLeads?: boolean | null;

  @Field(() => Float, { nullable: true, description: 'Miles, >= 0.' })
  deliveryRadius?: number | null;

  @Field(() => String, { nullable: true, description: "The store's web address." })
  website?: string | null;

  @Field(() => Boolean, { nullable: true, description: "Calls to the store are recorded; stored for the partner's own systems; the service does not act on it." })
  recordCalls?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Shoppers' emails are masked for the store; stored for the partner's own systems; the service does not act on it." })
  maskEmails?: boolean | null;

  @Field(() => String, { nullable: true, description: "The store's Google Places id." })
  placeId?: string | null;

  @Field(() => String, { nullable: true, description: 'IANA zone name.' })
  timezone?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A territory of the company; null falls back to the company retailer's." })
  territoryId?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A store type of the company.' })
  companyStoreTypeId?: string | null;

  @Field(() => LocationInput, { nullable: true, description: 'Null removes the address.' })
  physicalAddress?: LocationInput | null;

  @Field(() => EmailInput, { nullable: true, description: "The store's general email; `_destroy` with its id removes it." })
  generalEmail?: EmailInput | null;

  @Field(() => PhoneNumberInput, { nullable: true, description: "The store's general phone number; `_destroy` with its id removes it." })
  generalPhoneNumber?: PhoneNumberInput | null;

  @Field(() => [DeliveryAreaInput], { nullable: true, description: 'Delivery areas to add, change (`id`) or remove (`_destroy`).' })
  deliveryAreas?: DeliveryAreaInput[] | null;

  @Field(() => [HourInput], { nullable: true, description: 'Weekly hours to add, change (`id`) or remove (`_destroy`); one item per weekday.' })
  retailerLocationHours?: HourInput[] | null;

  @Field(() => [HourExceptionInput], {
    nullable: true,
    description: 'Dated exceptions to the weekly hours (holidays, special hours) to add, change (`id`) or remove (`_destroy`); at most 366 a store, none sharing a date.',
  })
  hourExceptions?: HourExceptionInput[] | null;
}

export type CrlAttribute = Exclude<keyof CompanyRetailerLocationInput, symbol>;
