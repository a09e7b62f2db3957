import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { authorOf, type Caller } from '../../auth/caller';
import { notFound, Validator } from '../../errors';
import { isUuid } from '../../search/list';
import { authorizeSiteKeys, siteKeyCompany } from './site-key.policy';
import { insertSiteKey, revokeSiteKeyRow, siteKeyById, siteKeysOf, type SiteKeyRow } from './site-key.repository';
import { SiteKey, type CreateSiteKeyInput } from './site-key.types';
import { audit } from '../audit/audit.service';
import { transactional } from '../../db/write';

/** At most this many origins per key. */
export const MAX_ORIGINS = 20;

/** A new publishable key: `pk_` and 32 url-safe random characters (192 bits). */
export function newSiteKey(): string {
  return `pk_${randomBytes(24).toString('base64url')}`;
}

/**
 * An origin as browsers send it (`Origin`): http(s), a host, an optional port, nothing else. Returns its
 * normal form (lower-case, no default port), or null when it is not one.
 */
export function normalOrigin(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 300 || !/^https?:\/\/[^/?#@\s]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
    return url.origin;
  } catch {
    return null;
  }
}

export function toSiteKey(row: SiteKeyRow): SiteKey {
  return Object.assign(new SiteKey(), {
    id: row.id,
    companyId: row.company_id,
    key: row.key,
    name: row.name,
    allowedOrigins: row.allowed_origins,
    createdAt: new Date(row.created_at),
    createdById: row.created_by_id,
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  });
}

/** Site keys (docs/lead-loop.md): create, list and revoke, for whom site-key.policy.ts allows. */
export class SiteKeyService {
  constructor(private readonly ctx: Context) {}

  private get caller(): Caller {
    return this.ctx.caller!;
  }

  async create(input: CreateSiteKeyInput): Promise<SiteKey> {
    const companyId = input.companyId ?? this.caller.companyId;
    const v = new Validator();
    // Without a company, only the platform operator gets as far as being told to name one.
    if (!companyId) authorizeSiteKeys(this.caller, '');
    if (!companyId || !isUuid(companyId)) v.add('company_id', companyId ? 'invalid' : 'blank', 'names the company');
    else authorizeSiteKeys(this.caller, companyId);
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name) v.add('name', 'blank', "can't be blank");
    else if (name.length > 255) v.add('name', 'too_long', 'is at most 255 characters');
    const origins = (input.allowedOrigins ?? []).map((o) => normalOrigin(o));
    if (!origins.length) v.add('allowed_origins', 'blank', 'needs at least one origin');
    if (origins.length > MAX_ORIGINS) v.add('allowed_origins', 'too_long', `is at most ${MAX_ORIGINS} origins`);
    if (origins.some((o) => o === null)) v.add('allowed_origins', 'invalid', 'each must be a scheme, a host and an optional port, without a path (https://shop.example.com)');
    v.throwIfAny();
    return transactional(this.ctx.em.fork() as EntityManager, async (tx) => {
      const [row] = await insertSiteKey(tx, {
        companyId: companyId!,
        key: newSiteKey(),
        name,
        allowedOrigins: [...new Set(origins as string[])],
        createdById: authorOf(this.caller),
      });
      // The key is publishable, yet the log names it by its record's id only.
      await audit.record(tx, this.caller, 'site_key.created', { type: 'site_key', id: row.id, companyId: row.company_id }, { name: row.name, allowed_origins: row.allowed_origins });
      return toSiteKey(row);
    });
  }

  /** The keys of `companyId` (the caller's company when absent), revoked ones too, newest first. */
  async list(companyId: string | null | undefined): Promise<SiteKey[]> {
    const company = companyId ?? siteKeyCompany(this.caller);
    if (company !== null && !isUuid(company)) throw notFound('Company', company);
    if (company === null) authorizeSiteKeys(this.caller, '');
    else authorizeSiteKeys(this.caller, company);
    return (await siteKeysOf(this.ctx.em, company)).map(toSiteKey);
  }

  /** Revokes a key: pages using it are refused from now on. A key the caller may not manage is 404. */
  async revoke(id: string): Promise<SiteKey> {
    const row = isUuid(id) ? await siteKeyById(this.ctx.em, id) : undefined;
    if (!row) throw notFound('SiteKey', id);
    try {
      authorizeSiteKeys(this.caller, row.company_id);
    } catch {
      // Another company's key is out of the caller's scope, as if it did not exist; any other role is 403.
      authorizeSiteKeys(this.caller, this.caller.companyId ?? '');
      throw notFound('SiteKey', id);
    }
    if (row.revoked_at !== null) return toSiteKey(row);
    return transactional(this.ctx.em.fork() as EntityManager, async (tx) => {
      const revoked = await revokeSiteKeyRow(tx, id);
      await audit.record(tx, this.caller, 'site_key.revoked', { type: 'site_key', id, companyId: revoked.company_id }, { name: revoked.name });
      return toSiteKey(revoked);
    });
  }
}
