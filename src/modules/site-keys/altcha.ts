import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Challenge } from 'altcha-lib' with { 'resolution-mode': 'import' };
import type { Config } from '../../config';
import { serviceSecret, spendChallenge } from './site-key.repository';

// altcha-lib is an ES module with a CommonJS build: required here (this service compiles to CommonJS), typed by its ES declarations.
const { createChallenge, randomInt, verifySolution } = require('altcha-lib') as typeof import('altcha-lib', { with: { 'resolution-mode': 'import' } });
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2') as typeof import('altcha-lib/algorithms/pbkdf2', { with: { 'resolution-mode': 'import' } });

/** How long a challenge may be solved and posted. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
const ALGORITHM = 'PBKDF2/SHA-256';

/** The two HMAC secrets of challenges, from ALTCHA_HMAC_KEY or the one kept in `service_secrets`. */
export interface AltchaKeys {
  signature: string;
  keySignature: string;
}

/**
 * The HMAC keys: derived from ALTCHA_HMAC_KEY when set, else from a random key the first process stores
 * in the database (every replica and every restart reads the same one).
 */
export async function altchaKeys(em: EntityManager, config: Config): Promise<AltchaKeys> {
  const master = config.altcha.hmacKey ?? (await serviceSecret(em, 'altcha_hmac_key', randomBytes(32).toString('base64url')));
  return { signature: `${master}:challenge`, keySignature: `${master}:key` };
}

/**
 * A signed challenge for the `altcha` widget, bound to a site key (its `data`), expiring in 5 minutes.
 * Deterministic mode: the browser searches counters up to `maxCounter` (half of it at least), each one
 * `cost` PBKDF2 iterations; the server checks one.
 */
export function newChallenge(keys: AltchaKeys, config: Config, siteKey: string, now = Date.now()): Promise<Challenge> {
  const { cost, maxCounter } = config.altcha;
  return createChallenge({
    algorithm: ALGORITHM,
    cost,
    counter: randomInt(Math.ceil(maxCounter / 2), maxCounter),
    deriveKey,
    hmacSignatureSecret: keys.signature,
    hmacKeySignatureSecret: keys.keySignature,
    expiresAt: new Date(now + CHALLENGE_TTL_MS),
    data: { site_key: siteKey },
  });
}

/**
 * Whether `payload` (the widget's base64 JSON `{challenge, solution}`) solves a challenge this service
 * signed for `siteKey`, unexpired, and was never used before (spent here, in `em`'s transaction). Any
 * malformed payload is false, never an exception.
 */
export async function spendSolution(em: EntityManager, keys: AltchaKeys, config: Config, siteKey: string, payload: unknown): Promise<boolean> {
  const parsed = parsePayload(payload);
  if (!parsed) return false;
  const { challenge, solution } = parsed;
  // Never more work to check than a challenge of ours asks (a forged one could ask for any).
  if (challenge.parameters.cost > config.altcha.cost) return false;
  if (challenge.parameters.algorithm !== ALGORITHM || challenge.parameters.data?.site_key !== siteKey) return false;
  const expiresAt = challenge.parameters.expiresAt;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return false;
  let verified = false;
  try {
    const result = await verifySolution({ challenge, solution, deriveKey, hmacSignatureSecret: keys.signature, hmacKeySignatureSecret: keys.keySignature });
    verified = result.verified && !result.expired;
  } catch {
    return false;
  }
  return verified && (await spendChallenge(em, challenge.signature!, new Date(expiresAt * 1000)));
}

function parsePayload(payload: unknown): { challenge: Challenge; solution: { counter: number; derivedKey: string } } | null {
  if (typeof payload !== 'string' || payload.length > 4096) return null;
  let value: any;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  const c = value?.challenge;
  const s = value?.solution;
  const p = c?.parameters;
  if (!p || typeof p !== 'object' || typeof c.signature !== 'string' || !c.signature) return null;
  if (typeof p.nonce !== 'string' || typeof p.salt !== 'string' || typeof p.keyPrefix !== 'string' || !Number.isInteger(p.cost) || !Number.isInteger(p.keyLength)) return null;
  if (p.cost < 1 || p.cost > 1_000_000 || p.keyLength < 1 || p.keyLength > 64) return null;
  if (!s || typeof s !== 'object' || !Number.isInteger(s.counter) || s.counter < 0 || typeof s.derivedKey !== 'string' || s.derivedKey.length > 256) return null;
  return { challenge: c, solution: { counter: s.counter, derivedKey: s.derivedKey } };
}
