import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from './caller';
import type { Role } from './role';
import { keyCallerRow } from './api-key.repository';
import type { CallerCache } from './caller-cache';

const KEY_PREFIX = 'lnk_';

/** A new plain key: 32 random bytes, base64url (never contains `:`). */
export function generatePlainKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashKey(plain: string): string {
  return createHash('sha256').update(plain, 'utf8').digest('hex');
}

/** The first characters of a key, kept to tell keys apart in listings. */
export function keyPrefix(plain: string): string {
  return plain.slice(0, KEY_PREFIX.length + 6);
}

/** SPEC 5: the header is `<key>` or `<identifier>:<key>`; the key is what follows the last `:`. */
export function keyFromHeader(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const key = header.slice(header.lastIndexOf(':') + 1).trim();
  return /^[A-Za-z0-9_-]{16,200}$/.test(key) ? key : null;
}

/**
 * Resolves a key to its caller in one statement (user, scope assignments, and a last-used stamp
 * written at most once a minute), or from `cache` when it holds the key (src/auth/caller-cache.ts).
 * Unknown, revoked and malformed keys all give null.
 */
export async function authenticate(em: EntityManager, header: string | undefined, cache?: CallerCache): Promise<Caller | null> {
  const plain = keyFromHeader(header);
  if (!plain) return null;
  const hash = hashKey(plain);
  return cache ? cache.get(hash, () => readCaller(em, hash)) : readCaller(em, hash);
}

async function readCaller(em: EntityManager, hash: string): Promise<Caller | null> {
  const row = await keyCallerRow(em, hash);
  if (!row || !timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return {
    userId: row.id,
    role: row.role as Role,
    companyId: row.company_id,
    retailerId: row.retailer_id,
    territoryId: row.territory_id,
    companyRetailerIds: row.cr_ids ?? [],
    companyRetailerLocationIds: row.crl_ids ?? [],
    retailerLocationIds: row.rl_ids ?? [],
    apiKeyId: row.key_id,
  };
}
