import type { EntityManager } from '@mikro-orm/postgresql';
import type { Validator } from '../../errors';
import { planNestedOne } from '../../db/nested-write';
import { flushTiny } from '../../limits';
import type { Geocoder } from '../../geo/geocoder';
import { Location } from './location.entity';
import { Email } from './email.entity';
import { PhoneNumber } from './phone-number.entity';
import type { AddressInput, EmailInput, LocationInput, PhoneNumberInput } from './contact.input';
import { parsePhone, phoneCountry } from './phone';

/** A record with the embedded contact objects of PRODUCT.md section 1 (a retailer location, a CRL, a company retailer). */
export interface ContactHolder {
  physicalAddress?: Location | null;
  generalEmail?: Email | null;
  generalPhoneNumber?: PhoneNumber | null;
}

const MAX_LENGTH = 255;
const ADDRESS_FIELDS = ['addressName', 'streetLineOne', 'streetLineTwo', 'postalCode', 'city', 'province', 'country'] as const;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const tooLong = `is too long (maximum is ${MAX_LENGTH} characters)`;

/**
 * Applies nested contact inputs (address, general email, general phone number) to a holder inside a
 * write. Problems go to the shared Validator under `<field>.<attribute>`; addresses whose text changed are
 * geocoded by `geocodePending()`, which the service calls once the input is known to be valid.
 */
export class ContactWriter {
  private readonly pending: Location[] = [];

  constructor(
    private readonly em: EntityManager,
    private readonly geocoder: Geocoder,
    private readonly v: Validator,
  ) {}

  /** `null` removes the address; an object creates it or changes the attributes it names. */
  async address(holder: ContactHolder, input: LocationInput | AddressInput | null, field = 'physical_address'): Promise<void> {
    const current = holder.physicalAddress ? await this.em.findOne(Location, holder.physicalAddress.id) : null;
    if (input === null) {
      if (current) this.em.remove(current);
      holder.physicalAddress = null;
      return;
    }
    const location = current ?? this.em.create(Location, {});
    let moved = !current;
    for (const key of ADDRESS_FIELDS) {
      const value = input[key];
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value.trim() : '';
      if (text.includes('\u0000')) {
        this.v.add(`${field}.${snake(key)}`, 'invalid');
        continue;
      }
      if (text.length > MAX_LENGTH) {
        this.v.add(`${field}.${snake(key)}`, 'too_long', tooLong);
        continue;
      }
      if ((location[key] ?? null) !== (text || null)) {
        location[key] = text || null;
        moved = true;
      }
    }
    const { latitude, longitude } = input as AddressInput;
    if (latitude !== undefined || longitude !== undefined) {
      if (latitude == null && longitude == null) {
        if (location.coordinatesSource === 'explicit') {
          location.coordinatesSource = null;
          moved = true;
        }
      } else if (latitude == null || longitude == null) {
        this.v.add(`${field}.${latitude == null ? 'latitude' : 'longitude'}`, 'blank');
      } else if (!(Math.abs(latitude) <= 90)) {
        this.v.add(`${field}.latitude`, 'invalid', 'must be between -90 and 90');
      } else if (!(Math.abs(longitude) <= 180)) {
        this.v.add(`${field}.longitude`, 'invalid', 'must be between -180 and 180');
      } else {
        location.latitude = flushTiny(latitude);
        location.longitude = flushTiny(longitude);
        location.coordinatesSource = 'explicit';
      }
    }
    if (moved && location.coordinatesSource !== 'explicit') this.pending.push(location);
    holder.physicalAddress = location;
  }

  /** `null` or `_destroy` removes the email; `id`, when sent, must be the current one's. */
  async email(holder: ContactHolder, input: EmailInput | null, field = 'general_email'): Promise<void> {
    const current = holder.generalEmail ? await this.em.findOne(Email, holder.generalEmail.id) : null;
    const step = planNestedOne(input, current);
    if (step.op === 'unknown') {
      this.v.add(`${field}.id`, 'invalid', 'is not the id of the current email');
      return;
    }
    if (step.op === 'remove' || input === null) {
      if (current) this.em.remove(current);
      holder.generalEmail = null;
      return;
    }
    if (input.email === undefined) {
      if (!current) this.v.add(`${field}.email`, 'blank');
      return;
    }
    const email = (input.email ?? '').trim().toLowerCase();
    if (!email) this.v.add(`${field}.email`, 'blank');
    else if (email.length > MAX_LENGTH) this.v.add(`${field}.email`, 'too_long', tooLong);
    else if (!EMAIL_RE.test(email) || email.includes('\u0000')) this.v.add(`${field}.email`, 'invalid');
    else if (current) current.email = email;
    else holder.generalEmail = this.em.create(Email, { email });
  }

  /** Like `email`; the number is parsed for `country_code` (else the current one's, else US) and kept in E.164. */
  async phone(holder: ContactHolder, input: PhoneNumberInput | null, field = 'general_phone_number'): Promise<void> {
    const current = holder.generalPhoneNumber ? await this.em.findOne(PhoneNumber, holder.generalPhoneNumber.id) : null;
    const step = planNestedOne(input, current);
    if (step.op === 'unknown') {
      this.v.add(`${field}.id`, 'invalid', 'is not the id of the current phone number');
      return;
    }
    if (step.op === 'remove' || input === null) {
      if (current) this.em.remove(current);
      holder.generalPhoneNumber = null;
      return;
    }
    let country = current?.countryCode ?? 'US';
    if (input.countryCode != null) {
      const c = phoneCountry(input.countryCode);
      if (!c) {
        this.v.add(`${field}.country_code`, 'invalid');
        return;
      }
      country = c;
    }
    if (input.phoneNumber === undefined) {
      if (!current) this.v.add(`${field}.phone_number`, 'blank');
      else current.countryCode = country;
      return;
    }
    const raw = (input.phoneNumber ?? '').trim();
    if (!raw) {
      this.v.add(`${field}.phone_number`, 'blank');
      return;
    }
    const parsed = raw.length <= 64 ? parsePhone(raw, country) : null;
    if (!parsed) this.v.add(`${field}.phone_number`, 'invalid');
    else if (current) Object.assign(current, { phoneNumber: parsed.e164, countryCode: parsed.countryCode });
    else holder.generalPhoneNumber = this.em.create(PhoneNumber, { phoneNumber: parsed.e164, countryCode: parsed.countryCode });
  }

  /** Geocodes the addresses written; a place the geocoder cannot find keeps null coordinates. */
  async geocodePending(): Promise<void> {
    for (const location of this.pending.splice(0)) {
      const found = await this.geocoder.geocode(location).catch(() => null);
      location.latitude = found?.latitude ?? null;
      location.longitude = found?.longitude ?? null;
      location.coordinatesSource = found ? 'geocoder' : null;
    }
  }
}
