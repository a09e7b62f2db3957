import { Field, Float, ID, InputType } from 'type-graphql';

/** SPEC 2.3 `LocationInput`: a postal address, geocoded on write. */
@InputType()
export class LocationInput {
  @Field(() => String, { nullable: true })
  addressName?: string | null;

  @Field(() => String, { nullable: true })
  streetLineOne?: string | null;

  @Field(() => String, { nullable: true })
  streetLineTwo?: string | null;

  @Field(() => String, { nullable: true })
  postalCode?: string | null;

  @Field(() => String, { nullable: true })
  city?: string | null;

  @Field(() => String, { nullable: true })
  province?: string | null;

  @Field(() => String, { nullable: true })
  country?: string | null;
}

/**
 * An address with optional explicit coordinates (network management). Coordinates sent here win over
 * geocoding until they are cleared by sending both as null.
 */
@InputType()
export class AddressInput extends LocationInput {
  @Field(() => Float, { nullable: true, description: 'Explicit latitude; send with longitude. Both null returns the address to geocoding.' })
  latitude?: number | null;

  @Field(() => Float, { nullable: true, description: 'Explicit longitude; send with latitude.' })
  longitude?: number | null;
}

/** SPEC 2.3 `EmailInput` (a store's general email). `_destroy` with the current id removes it. */
@InputType()
export class EmailInput {
  @Field(() => ID, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  email?: string | null;

  @Field(() => Boolean, { nullable: true })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `PhoneNumberInput` (a store's general phone number), parsed with `country_code` (default US). */
@InputType()
export class PhoneNumberInput {
  @Field(() => ID, { nullable: true })
  id?: string | null;

  @Field(() => String, { nullable: true })
  phoneNumber?: string | null;

  @Field(() => String, { nullable: true })
  countryCode?: string | null;

  @Field(() => Boolean, { nullable: true })
  _destroy?: boolean | null;
}
