import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import { BudgetedCache, stringBytes } from '../../memory';

export interface ParsedPhone {
  /** E.164, e.g. `+15038234000`. */
  e164: string;
  countryCode: string;
}

/** Upper-cased ISO 3166 alpha-2 code when libphonenumber knows it, else null. */
export function phoneCountry(code: string | null | undefined): string | null {
  const upper = (code ?? '').trim().toUpperCase();
  return isSupportedCountry(upper) ? upper : null;
}

/** Parses a number written for `country` (PRODUCT.md section 5); null when it is not a valid number. */
export function parsePhone(raw: string, country: string): ParsedPhone | null {
  const c = phoneCountry(country);
  if (!c) return null;
  const parsed = parsePhoneNumberFromString(raw, c as any);
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, countryCode: c };
}

/**
 * International format (`+1 503 555 0123`) of a stored number; the stored value when it cannot be
 * parsed. Numbers are formatted on write; those written around the application (a bulk load) are
 * formatted when read, and recent formats are kept (the `phone_formats` budget), since a list reads the
 * same numbers again and again (parsing one costs about 20 µs).
 */
export function formatPhone(phoneNumber: string, countryCode: string): string {
  const key = `${countryCode} ${phoneNumber}`;
  let formatted = FORMATS.get(key);
  if (formatted === undefined) {
    const parsed = parsePhoneNumberFromString(phoneNumber, countryCode as any);
    formatted = parsed ? parsed.formatInternational() : phoneNumber;
    FORMATS.set(key, formatted);
  }
  return formatted;
}
const FORMATS = new BudgetedCache<string, string>('phone_formats', { sizeOf: (formatted, key) => stringBytes(key) + stringBytes(formatted) });
