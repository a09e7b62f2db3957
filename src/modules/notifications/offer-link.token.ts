import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../../search/list';

/** How long a mail's link to its lead's page works after the mail was sent. */
export const OFFER_LINK_DAYS = 14;
/** The path of the page (outside /v1: a person opens it, no API key). */
export const OFFER_PAGE_PATH = '/leads/offer';

const PREFIX = 'o1';

/** What a valid link names: one lead, its offer to one store, and the one user the mail went to. */
export interface OfferLink {
  leadId: string;
  offerId: string;
  userId: string;
  /** When it stops working. */
  expiresAt: Date;
}

export type OfferLinkCheck = ({ ok: true } & OfferLink) | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** The links' own key, derived from `NOTIFICATION_SECRET`: a link's MAC is never an unsubscribe token's. */
function key(secret: string): Buffer {
  return createHmac('sha256', secret).update('leadnet offer link v1', 'utf8').digest();
}

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', key(secret)).update(payload, 'utf8').digest();
}

/**
 * The signed link token of one mail about one lead: `o1.<lead id>.<offer id>.<user id>.<expiry, unix
 * seconds>.<base64url HMAC-SHA256 of the five>`, with a key derived from the notification secret. It works
 * for `OFFER_LINK_DAYS` from `now` (the mail's send time), names nothing else, and needs no login.
 */
export function offerLinkToken(secret: string, link: { leadId: string; offerId: string; userId: string }, now: Date): string {
  const expires = Math.floor(now.getTime() / 1000) + OFFER_LINK_DAYS * 86_400;
  const payload = `${PREFIX}.${link.leadId.toLowerCase()}.${link.offerId.toLowerCase()}.${link.userId.toLowerCase()}.${expires}`;
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** Checks a link's token: its shape, its signature (constant time), then its expiry. Never throws. */
export function checkOfferLinkToken(secret: string, token: unknown, now: Date): OfferLinkCheck {
  if (typeof token !== 'string' || token.length > 250) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (
    parts.length !== 6 ||
    parts[0] !== PREFIX ||
    !isUuid(parts[1]) ||
    !isUuid(parts[2]) ||
    !isUuid(parts[3]) ||
    !/^\d{1,12}$/.test(parts[4]) ||
    !/^[A-Za-z0-9_-]{43}$/.test(parts[5])
  ) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = mac(secret, parts.slice(0, 5).join('.'));
  const given = Buffer.from(parts[5], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const expiresAt = new Date(Number(parts[4]) * 1000);
  if (now.getTime() >= expiresAt.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, leadId: parts[1].toLowerCase(), offerId: parts[2].toLowerCase(), userId: parts[3].toLowerCase(), expiresAt };
}

/**
 * The form secret of a link's page: a hidden field its Accept and Decline forms carry back, derived from
 * the token (HMAC), so only a page served for this token can post (no cookie needed).
 */
export function offerFormSecret(secret: string, token: string): string {
  return createHmac('sha256', key(secret)).update(`form.${token}`, 'utf8').digest('base64url');
}

/** Whether `given` is the token's form secret (constant time). */
export function checkOfferFormSecret(secret: string, token: string, given: unknown): boolean {
  if (typeof given !== 'string' || given.length > 100) return false;
  const expected = Buffer.from(offerFormSecret(secret, token), 'utf8');
  const actual = Buffer.from(given, 'utf8');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The page's URL for a token under the public base URL. */
export function offerPageUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${OFFER_PAGE_PATH}/${encodeURIComponent(token)}`;
}
