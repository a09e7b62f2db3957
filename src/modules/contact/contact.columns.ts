import { BASE_COLUMNS, type BaseRow, type ColumnMap } from '../../db/columns';
import { formatPhone } from './phone';

/**
 * The contact records as plain rows in the shape of their GraphQL types, one column map each: the
 * lead, company retailer and CRL repositories read and embed them from these.
 */
export interface EmailRow extends BaseRow {
  email: string;
}

export interface PhoneNumberRow extends BaseRow {
  phoneNumber: string;
  countryCode: string;
  formatted: string;
}

export interface LocationRow extends BaseRow {
  addressName: string | null;
  streetLineOne: string | null;
  streetLineTwo: string | null;
  postalCode: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  latitude: number | null;
  longitude: number | null;
}

export const EMAIL: ColumnMap<EmailRow> = { ...BASE_COLUMNS, email: 'email' };

export const PHONE_NUMBER: ColumnMap<PhoneNumberRow> = {
  ...BASE_COLUMNS,
  phoneNumber: 'phone_number',
  countryCode: 'country_code',
  formatted: 'formatted_international',
};

export const LOCATION: ColumnMap<LocationRow> = {
  ...BASE_COLUMNS,
  addressName: 'address_name',
  streetLineOne: 'street_line_one',
  streetLineTwo: 'street_line_two',
  postalCode: 'postal_code',
  city: 'city',
  province: 'province',
  country: 'country',
  latitude: 'latitude',
  longitude: 'longitude',
};

/**
 * A phone number row with its international format: stored on write, made here for one written
 * around the application (a bulk load).
 */
export function withFormat<P extends PhoneNumberRow | null>(phone: P): P {
  if (phone) phone.formatted ??= formatPhone(phone.phoneNumber, phone.countryCode);
  return phone;
}
