import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The header carrying `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'Leadnet-Signature';
/** How old a signature a receiver should accept, in seconds (the README's snippet uses it). */
export const REPLAY_WINDOW_SECONDS = 300;

/** A new endpoint secret: 32 random bytes, `whsec_` + base64url. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signatureHeader(secret: string, body: string, timestamp: number): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** What a receiver does: the header's MAC matches the body and its timestamp is within the window. */
export function verifySignature(secret: string, body: string, header: string | undefined, now = Date.now() / 1000, window = REPLAY_WINDOW_SECONDS): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(now - t) > window || !parts.v1) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Secrets at rest: the worker must read them back to sign, so they are encrypted (AES-256-GCM, key
 * derived from WEBHOOK_SECRET_KEY) rather than hashed; without a key they are stored as written.
 */
export function sealSecret(secret: string, key: string | undefined): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(key).digest(), iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
}

export function openSecret(sealed: string, key: string | undefined): string {
  if (sealed.startsWith('plain:')) return sealed.slice('plain:'.length);
  if (!sealed.startsWith('v1:') || !key) throw new Error('webhook secret is sealed with a key this process does not have');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', createHash('sha256').update(key).digest(), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * Wait before the next attempt after `attempts` failed ones: 30 s doubling up to 1 h, with "equal jitter"
 * (half fixed, half random) so endpoints that failed together do not retry together.
 */
export function backoffMs(attempts: number, random: () => number = Math.random): number {
  const cap = Math.min(3_600_000, 30_000 * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
  return Math.round(cap / 2 + random() * (cap / 2));
}
