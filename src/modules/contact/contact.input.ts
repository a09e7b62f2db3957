import { Field, Float, ID, InputType } from 'type-graphql';

/** SPEC 2.3 `LocationInput`: a postal address, geocoded on write. */
@InputType({ description: 'A postal address; the service geocodes it on write (PRODUCT.md 8).' })
export class LocationInput {
  @Field(() => String, { nullable: true, description: 'A name for the place, e.g. "Warehouse" or a building name.' })
  addressName?: string | null;

  @Field(() => String, { nullable: true, description: 'Street and number.' })
  streetLineOne?: string | null;

  @Field(() => String, { nullable: true, description: 'Suite, floor or unit.' })
  streetLineTwo?: string | null;

  @Field(() => String, { nullable: true, description: 'Postal or ZIP code as written locally, e.g. `97205`.' })
  postalCode?: string | null;

  @Field(() => String, { nullable: true, description: 'City or town.' })
  city?: string | null;

  @Field(() => String, { nullable: true, description: 'State, province or region, e.g. `OR`.' })
  province?: string | null;

  @Field(() => String, { nullable: true, description: 'Country, as ISO 3166 alpha-2 (`US`) or a name the geocoder knows.' })
  country?: string | null;
}

/**
 * An address with optional explicit coordinates (network management). Coordinates sent here win over
 * geocoding until they are cleared by sending both as null.
 */
@InputType({ description: 'A postal address, geocoded on write unless explicit coordinates are sent.' })
export class AddressInput extends LocationInput {
  @Field(() => Float, { nullable: true, description: 'Explicit latitude; send with longitude. Both null returns the address to geocoding.' })
  latitude?: number | null;

  @Field(() => Float, { nullable: true, description: 'Explicit longitude; send with latitude.' })
  longitude?: number | null;
}

/** SPEC 2.3 `EmailInput` (a store's general email). `_destroy` with the current id removes it. */
@InputType({ description: "A store's general email. With the current `id` and `_destroy: true` it is removed." })
export class EmailInput {
  @Field(() => ID, { nullable: true, description: "The current email's id, to change it or (with `_destroy`) remove it." })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'The address; stored trimmed and lower-cased.' })
  email?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove the general email.' })
  _destroy?: boolean | null;
}

/** SPEC 2.3 `PhoneNumberInput` (a store's general phone number), parsed with `country_code` (default US). */
@InputType({ description: "A store's general phone number, parsed with `countryCode`. With the current `id` and `_destroy: true` it is removed." })
export class PhoneNumberInput {
  @Field(() => ID, { nullable: true, description: "The current number's id, to change it or (with `_destroy`) remove it." })
  id?: string | null;

  @Field(() => String, { nullable: true, description: 'The number as typed (`(503) 555-0100`); stored in E.164. A number that cannot be parsed is refused.' })
  phoneNumber?: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 3166 alpha-2 country to parse the number for; default `US`.' })
  countryCode?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'With `id`: remove the general phone number.' })
  _destroy?: boolean | null;
}
