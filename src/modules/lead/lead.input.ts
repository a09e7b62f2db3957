import { Field, InputType } from 'type-graphql';
import { JSONScalar, UUIDScalar } from '../../graphql/common';
import { LocationInput } from '../contact/contact.input';

/** SPEC 2.3 `EmailInput` of a lead. With `id`: updates (or, with `_destroy: true`, removes) that email. */
@InputType()
export class LeadEmailInput {
  @Field(() => UUIDScalar, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  email?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this email.' })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `PhoneNumberInput` of a lead; `country_code` (ISO 3166 alpha-2) defaults to `US`. */
@InputType()
export class LeadPhoneNumberInput {
  @Field(() => UUIDScalar, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  phoneNumber?: string | null;

  @Field(() => String, { nullable: true })
  countryCode?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove this phone number.' })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `LocationInput`; geocoded on write. `_destroy: true` (or `location: null`) removes it. */
@InputType()
export class LeadLocationInput extends LocationInput {
  @Field(() => UUIDScalar, { nullable: true, description: "Optional; when sent it must be the lead's own location." })
  id?: string | null;

  @Field(() => Boolean, { nullable: true })
  _destroy?: boolean | null;
}

/** An activity nested in a lead body (SPEC 2.1). `message` and `body` are kept in `data`. */
@InputType()
export class LeadActivityItemInput {
  @Field(() => UUIDScalar, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'A SPEC 2.2 type; absent means `LeadActivity::Note`.' })
  type?: string | null;

  @Field(() => String, { nullable: true })
  message?: string | null;

  @Field(() => String, { nullable: true })
  body?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  data?: unknown;

  @Field(() => UUIDScalar, { nullable: true })
  sourceId?: string | null;

  @Field(() => String, { nullable: true })
  sourceType?: string | null;

  @Field(() => Boolean, { nullable: true, description: "With `id`: remove this activity (needs the lead's destroy right)." })
  _destroy?: boolean | null;
}

/** SPEC 2.1 `LeadInput` plus `status`. */
@InputType()
export class LeadInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: "Ignored: the owner is always the caller's company or retailer." })
  ownerId?: string | null;

  @Field(() => String, { nullable: true, description: 'Ignored, as `ownerId`.' })
  ownerType?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A company retailer location the caller may route leads to; null unassigns.' })
  assigneeId?: string | null;

  @Field(() => String, { nullable: true, description: 'Must be `CompanyRetailerLocation` when sent.' })
  assigneeType?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  sourceId?: string | null;

  @Field(() => String, { nullable: true })
  sourceType?: string | null;

  @Field(() => String, { nullable: true, description: 'Any non-blank string up to 64 characters; default `New`.' })
  status?: string | null;

  @Field(() => [LeadEmailInput], { nullable: true })
  emails?: LeadEmailInput[] | null;

  @Field(() => [LeadPhoneNumberInput], { nullable: true })
  phoneNumbers?: LeadPhoneNumberInput[] | null;

  @Field(() => LeadLocationInput, { nullable: true })
  location?: LeadLocationInput | null;

  @Field(() => [LeadActivityItemInput], { nullable: true })
  leadActivities?: LeadActivityItemInput[] | null;
}

/** SPEC 2.2 `LeadActivityInput`. */
@InputType()
export class LeadActivityInput {
  @Field(() => UUIDScalar, { nullable: true, description: 'Required on create.' })
  leadId?: string | null;

  @Field(() => String, { nullable: true, description: 'A SPEC 2.2 type; absent on create means `LeadActivity::Note`.' })
  type?: string | null;

  @Field(() => String, { nullable: true })
  sourceType?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  sourceId?: string | null;

  @Field(() => String, { nullable: true })
  crmId?: string | null;

  @Field(() => String, { nullable: true })
  crmProvider?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  crmDataCache?: unknown;

  @Field(() => JSONScalar, { nullable: true })
  data?: unknown;
}
