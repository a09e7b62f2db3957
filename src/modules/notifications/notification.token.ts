import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../../search/list';
import type { Topic } from './notification.defaults';

/** How long an unsubscribe link works after the mail that carries it was sent. */
export const UNSUBSCRIBE_TOKEN_DAYS = 90;
/** The token's first part names what it turns off. */
const PREFIX: Record<Topic, string> = { lead_assigned: 'u1', sla_breached: 's1', lead_escalated: 'e1' };

export type TokenCheck = { ok: true; userId: string; topic: Topic } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload, 'utf8').digest();
}

/**
* A one-click unsubscribe token for `userId`: `u1.<user id>.<issued, unix seconds>.<base64url HMAC-SHA256
 * of the three>` with the server's secret. It needs no login, names nothing but the user, and works for
 * `UNSUBSCRIBE_TOKEN_DAYS`.
 */
export function unsubscribeToken(secret: string, userId: string, now: Date, topic: Topic = 'lead_assigned'): string {
  const payload = `${PREFIX[topic]}.${userId}.${Math.floor(now.getTime() / 1000)}`;
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/** Checks a token from a link: its shape, its signature (constant time), then its age. Never throws. */
export function checkUnsubscribeToken(secret: string, token: unknown, now: Date): TokenCheck {
  if (typeof token !== 'string' || token.length > 200) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  const topic = (Object.keys(PREFIX) as Topic[]).find((t) => PREFIX[t] === parts[0]);
  if (parts.length !== 4 || !topic || !isUuid(parts[1]) || !/^\d{1,12}$/.test(parts[2]) || !/^[A-Za-z0-9_-]{43}$/.test(parts[3])) {
    return { ok: false, reason: 'malformed' };
  }
  const expected = mac(secret, parts.slice(0, 3).join('.'));
  const given = Buffer.from(parts[3], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  const ageSeconds = now.getTime() / 1000 - Number(parts[2]);
  if (ageSeconds > UNSUBSCRIBE_TOKEN_DAYS * 86_400) return { ok: false, reason: 'expired' };
  return { ok: true, userId: parts[1].toLowerCase(), topic: topic! };
}
