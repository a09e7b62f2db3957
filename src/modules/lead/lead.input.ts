import { Field, InputType } from 'type-graphql';
import { JSONScalar, UUIDScalar } from '../../graphql/common';
import { LocationInput } from '../contact/contact.input';
import { LeadConsentInput } from './lead-consent.types';

/** SPEC 2.3 `EmailInput` of a lead. With `id`: updates (or, with `_destroy: true`, removes) that email. */
@InputType({ description: 'One email of a lead. Without `id` it is added; with `id` that email is changed, or removed with `_destroy: true`.' })
export class LeadEmailInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'An email of this lead to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: "The address; stored trimmed and lower-cased. A duplicate of the lead's own emails is not added twice." })
  email?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this email.' })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `PhoneNumberInput` of a lead; `country_code` (ISO 3166 alpha-2) defaults to `US`. */
@InputType({ description: 'One phone number of a lead. Without `id` it is added; with `id` that number is changed, or removed with `_destroy: true`.' })
export class LeadPhoneNumberInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'A phone number of this lead to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'The number as typed (`(503) 555-0100`); stored in E.164. One that cannot be parsed is 422 `invalid`.' })
  phoneNumber?: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 3166 alpha-2 country to parse the number for; default `US`.' })
  countryCode?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this phone number.' })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `LocationInput`; geocoded on write. `_destroy: true` (or `location: null`) removes it. */
@InputType({ description: "A lead's address, geocoded on write. `_destroy: true` (or `location: null`) removes it." })
export class LeadLocationInput extends LocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Optional; when sent it must be the lead's own location." })
  id?: string | null;

  @Field(() => Boolean, { nullable: true, description: "Remove the lead's location." })
  _destroy?: boolean | null;
}

/** An activity nested in a lead body (SPEC 2.1). `message` and `body` are kept in `data`. */
@InputType({ description: "An activity sent inside a lead's body. Without `id` it is appended to the timeline; with `id` it changes that activity." })
export class LeadActivityItemInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'An activity of this lead to change or remove.' })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'A SPEC 2.2 type; absent means `LeadActivity::Note`.' })
  type?: string | null;

  @Field(() => String, { nullable: true, description: 'Free text; stored as `data.message`.' })
  message?: string | null;

  @Field(() => String, { nullable: true, description: 'Free text; stored as `data.body`.' })
  body?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: "The type's payload as a JSON object, stored as sent (a `LeadActivity::QuoteRequest` needs `products`, contract 2.2)." })
  data?: unknown;

  @Field(() => UUIDScalar, { nullable: true, description: 'Where the activity came from (UUID), usually the store the shopper used.' })
  sourceId?: string | null;

  @Field(() => String, { nullable: true, description: 'The kind of record `sourceId` names, e.g. `CompanyRetailerLocation`.' })
  sourceType?: string | null;

  @Field(() => Boolean, { nullable: true, description: "With `id`: remove this activity (needs the lead's destroy right)." })
  _destroy?: boolean | null;
}

/** SPEC 2.1 `LeadInput` plus `status`. */
@InputType({ description: "A lead's writable attributes (contract 2.1). Nested lists: items with `id` change that item, items without are added, `_destroy: true` removes." })
export class LeadInput {
  @Field(() => String, { nullable: true, description: "The prospect's name; required on create (blank is 422 `blank`)." })
  name?: string | null;

  @Field(() => String, { nullable: true, description: "Ignored: the owner is always the caller's company or retailer." })
  ownerId?: string | null;

  @Field(() => String, { nullable: true, description: 'Ignored, as `ownerId`.' })
  ownerType?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A company retailer location the caller may route leads to; null unassigns.' })
  assigneeId?: string | null;

  @Field(() => String, { nullable: true, description: 'Must be `CompanyRetailerLocation` when sent.' })
  assigneeType?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Where the lead came from (UUID), e.g. the store whose locator sent it.' })
  sourceId?: string | null;

  @Field(() => String, { nullable: true, description: 'The kind of record `sourceId` names, e.g. `CompanyRetailerLocation`.' })
  sourceType?: string | null;

  @Field(() => String, { nullable: true, description: 'Any non-blank string up to 64 characters; default `New`.' })
  status?: string | null;

  @Field(() => [LeadEmailInput], { nullable: true, description: 'Emails to add, change or remove. A create needs an email or a phone number.' })
  emails?: LeadEmailInput[] | null;

  @Field(() => [LeadPhoneNumberInput], { nullable: true, description: 'Phone numbers to add, change or remove. A create needs an email or a phone number.' })
  phoneNumbers?: LeadPhoneNumberInput[] | null;

  @Field(() => LeadLocationInput, { nullable: true, description: 'The address to set (geocoded); null removes it.' })
  location?: LeadLocationInput | null;

  @Field(() => [LeadActivityItemInput], { nullable: true, description: 'Activities to append (or, with `id`, change); the timeline is never replaced.' })
  leadActivities?: LeadActivityItemInput[] | null;

  @Field(() => [LeadConsentInput], { nullable: true, description: 'Consents the person gave, added to the lead with source `api` (at most 20 a write); stored ones are never changed by a write.' })
  consents?: LeadConsentInput[] | null;
}

/** SPEC 2.2 `LeadActivityInput`. */
@InputType({ description: "A lead activity's writable attributes (contract 2.2)." })
export class LeadActivityInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create.' })
  leadId?: string | null;

  @Field(() => String, { nullable: true, description: 'A SPEC 2.2 type; absent on create means `LeadActivity::Note`.' })
  type?: string | null;

  @Field(() => String, { nullable: true, description: 'The kind of record `sourceId` names, e.g. `CompanyRetailerLocation`.' })
  sourceType?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Where the activity came from (UUID).' })
  sourceId?: string | null;

  @Field(() => String, { nullable: true, description: "The activity's id in the partner's CRM." })
  crmId?: string | null;

  @Field(() => String, { nullable: true, description: 'The CRM it was synced to, e.g. `salesforce`.' })
  crmProvider?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Any JSON object the CRM integration keeps with the activity.' })
  crmDataCache?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: "The type's payload as a JSON object, stored as sent (a `LeadActivity::QuoteRequest` needs `products`)." })
  data?: unknown;
}
