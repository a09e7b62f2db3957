import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Validator } from '../../errors';
import { LEAD_ACTIVITY_TYPES, type LeadActivityType } from './lead-activity.entity';

/** Pure rules of leads and their activities (PRODUCT.md section 5, SPEC 2.2 and 4.3). */

export const DEFAULT_COUNTRY = 'US';
export const DEFAULT_ACTIVITY_TYPE: LeadActivityType = 'LeadActivity::Note';
export const MAX_STRING = 255;
export const MAX_STATUS = 64;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** PostgreSQL refuses NUL in text and jsonb: such input is invalid, not a 500. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (isPlainObject(value)) return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v));
  return false;
}

export const isBlank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * An optional string attribute: trimmed, blank -> null, checked for length and NUL. Returns undefined
 * (and records the error) when invalid.
 */
export function optionalString(value: string | null | undefined, field: string, v: Validator, max = MAX_STRING): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const trimmed = value.trim();
  if (containsNul(trimmed)) {
    v.add(field, 'invalid');
    return undefined;
  }
  if (trimmed.length > max) {
    v.add(field, 'too_long', `is too long (maximum is ${max} characters)`);
    return undefined;
  }
  return trimmed === '' ? null : trimmed;
}

/** A required string attribute: blank is 422 `blank`. */
export function requiredString(value: string | null | undefined, field: string, v: Validator, max = MAX_STRING): string | undefined {
  if (isBlank(value)) {
    v.add(field, 'blank');
    return undefined;
  }
  return optionalString(value, field, v, max) ?? undefined;
}

/** Emails are trimmed and lower-cased (PRODUCT.md section 5). */
export function normalizeEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** A normalized email, or undefined after recording `blank`/`invalid`/`too_long` on `field`. */
export function checkEmail(raw: string | null | undefined, field: string, v: Validator): string | undefined {
  if (isBlank(raw)) {
    v.add(field, 'blank');
    return undefined;
  }
  const email = normalizeEmail(raw!);
  if (email.length > MAX_STRING) v.add(field, 'too_long', `is too long (maximum is ${MAX_STRING} characters)`);
  else if (!EMAIL_RE.test(email) || containsNul(email)) v.add(field, 'invalid');
  else return email;
  return undefined;
}

export interface ParsedPhone {
  /** E.164, e.g. `+15035550123`. */
  e164: string;
  /** ISO 3166 alpha-2 of the number (from the number itself when it carries a `+` prefix). */
  country: string;
}

/** ISO 3166 alpha-2 (case-insensitive) the phone library knows; blank is the default `US`. */
export function checkCountry(raw: string | null | undefined, field: string, v: Validator): string | undefined {
  if (isBlank(raw)) return DEFAULT_COUNTRY;
  const code = raw!.trim().toUpperCase();
  if (isSupportedCountry(code)) return code;
  v.add(field, 'invalid', 'is not a supported ISO 3166 country code');
  return undefined;
}

/** Parses a phone number for a country; null when it is not a valid number. */
export function parsePhone(raw: string, country: string): ParsedPhone | null {
  if (containsNul(raw) || raw.length > MAX_STRING) return null;
  const parsed = parsePhoneNumberFromString(raw, country as Parameters<typeof parsePhoneNumberFromString>[1]);
  if (!parsed || !parsed.isValid()) return null;
  return { e164: parsed.number, country: parsed.country ?? country };
}

/** A parsed phone, or undefined after recording `blank`/`invalid` on `<prefix>phone_number`. */
export function checkPhone(raw: string | null | undefined, country: string | undefined, prefix: string, v: Validator): ParsedPhone | undefined {
  if (isBlank(raw)) {
    v.add(`${prefix}phone_number`, 'blank');
    return undefined;
  }
  if (country === undefined) return undefined;
  const parsed = parsePhone(raw!, country);
  if (!parsed) v.add(`${prefix}phone_number`, 'invalid');
  return parsed ?? undefined;
}

export function isActivityType(value: unknown): value is LeadActivityType {
  return typeof value === 'string' && (LEAD_ACTIVITY_TYPES as readonly string[]).includes(value);
}

/** SPEC 4.3 rule 4: an unknown type is 422 `invalid` on `type`. Absent means a `Note`. */
export function checkActivityType(value: string | null | undefined, v: Validator): LeadActivityType | undefined {
  if (value === undefined || value === null) return DEFAULT_ACTIVITY_TYPE;
  if (isActivityType(value)) return value;
  v.add('type', 'invalid', 'is not a known activity type');
  return undefined;
}

/**
 * `data` of an activity: a free-form object (or null), kept exactly as sent. A quote request needs
 * `data.products`, a non-empty list of objects (other keys of each item are kept); `notes` is a
 * string; `additionalData` an object.
 */
export function checkActivityData(type: LeadActivityType | undefined, data: unknown, v: Validator): void {
  if (data !== null && data !== undefined && !isPlainObject(data)) {
    v.add('data', 'invalid', 'must be an object');
    return;
  }
  if (containsNul(data)) {
    v.add('data', 'invalid', 'must not contain NUL characters');
    return;
  }
  if (type !== 'LeadActivity::QuoteRequest') return;
  const products = data?.products;
  if (!Array.isArray(products) || products.length === 0) v.add('data.products', 'blank', 'must list at least one product');
  else if (!products.every(isPlainObject)) v.add('data.products', 'invalid', 'must be a list of objects');
  if (data?.notes !== undefined && data.notes !== null && typeof data.notes !== 'string') v.add('data.notes', 'invalid', 'must be a string');
  if (data?.additionalData !== undefined && data.additionalData !== null && !isPlainObject(data.additionalData)) {
    v.add('data.additionalData', 'invalid', 'must be an object');
  }
}

/** `crm_data_cache`: a free-form object or null. */
export function checkFreeFormObject(value: unknown, field: string, v: Validator): void {
  if (value === null || value === undefined) return;
  if (!isPlainObject(value)) v.add(field, 'invalid', 'must be an object');
  else if (containsNul(value)) v.add(field, 'invalid', 'must not contain NUL characters');
}

/**
 * The nested activity keys `message` and `body` (SPEC 2.1) have no column of their own: they go into
 * `data`, unless `data` already has that key.
 */
export function foldMessageAndBody(
  data: Record<string, unknown> | null | undefined,
  message: string | null | undefined,
  body: string | null | undefined,
): Record<string, unknown> | null | undefined {
  if (message === undefined && body === undefined) return data;
  if (data !== undefined && data !== null && !isPlainObject(data)) return data;
  const folded: Record<string, unknown> = { ...(data ?? {}) };
  if (message !== undefined && !('message' in folded)) folded.message = message;
  if (body !== undefined && !('body' in folded)) folded.body = body;
  return folded;
}

/** The lock keys of a lead's identity under an owner: one per normalized email and phone, sorted. */
export function duplicateKeys(ownerId: string, emails: string[], phones: string[]): string[] {
  return [...new Set([...emails.map((e) => `lead:${ownerId}:email:${e}`), ...phones.map((p) => `lead:${ownerId}:phone:${p}`)])].sort();
}
