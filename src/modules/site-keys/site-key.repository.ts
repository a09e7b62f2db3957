import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from '../../db/sql';
import { contactWithdrawnSql } from '../lead/lead-consent.repository';

/** A timestamp as the driver gives it. */
type Timestamp = Date | string;

/** A `site_keys` row. */
export interface SiteKeyRow {
  id: string;
  company_id: string;
  key: string;
  name: string;
  allowed_origins: string[];
  created_at: Timestamp;
  created_by_id: string | null;
  revoked_at: Timestamp | null;
}

/** The store a visitor asks, with what the form needs of it. */
export interface ContactStoreRow {
  id: string;
  company_id: string;
  /** It and its company retailer receive leads. */
  receiving: boolean;
  name: string | null;
  country: string | null;
}

export function insertSiteKey(em: EntityManager, v: { companyId: string; key: string; name: string; allowedOrigins: string[]; createdById: string | null }): Promise<SiteKeyRow[]> {
  return em.execute(
    `insert into site_keys (company_id, key, name, allowed_origins, created_by_id) values (?, ?, ?, ?::text[], ?) returning *`,
    [v.companyId, v.key, v.name, pgArray(v.allowedOrigins), v.createdById],
  );
}

/** The keys of a company (every company's: null), newest first. */
export function siteKeysOf(em: EntityManager, companyId: string | null): Promise<SiteKeyRow[]> {
  return em.execute(`select * from site_keys where (?::uuid is null or company_id = ?::uuid) order by created_at desc, id limit 500`, [companyId, companyId]);
}

export async function siteKeyById(em: EntityManager, id: string): Promise<SiteKeyRow | undefined> {
  const rows: SiteKeyRow[] = await em.execute(`select * from site_keys where id = ?`, [id]);
  return rows[0];
}

/** Revokes a key (once: a revoked key keeps its first `revoked_at`). */
export async function revokeSiteKeyRow(em: EntityManager, id: string): Promise<SiteKeyRow> {
  const [row] = await em.execute<SiteKeyRow[]>(`update site_keys set revoked_at = coalesce(revoked_at, now()) where id = ? returning *`, [id]);
  return row;
}

/** A working (not revoked) key by its publishable value. */
export async function activeSiteKey(em: EntityManager, key: string): Promise<SiteKeyRow | undefined> {
  const rows: SiteKeyRow[] = await em.execute(`select * from site_keys where key = ? and revoked_at is null`, [key]);
  return rows[0];
}

/** A company retailer location by id, with whether it receives leads and its country. */
export async function contactStore(em: EntityManager, id: string): Promise<ContactStoreRow | undefined> {
  const rows: ContactStoreRow[] = await em.execute(
    `select crl.id, crl.company_id, (crl.receiving_leads and cr.receiving_leads) as receiving,
            coalesce(crl.name, rl.name) as name, loc.country
       from company_retailer_locations crl
       join company_retailers cr on cr.id = crl.company_retailer_id
       left join retailer_locations rl on rl.id = crl.retailer_location_id
       left join locations loc on loc.id = coalesce(crl.physical_address_id, rl.physical_address_id)
      where crl.id = ?`,
    [id],
  );
  return rows[0];
}

/** Of these products, the ids and names that belong to the company. */
export function companyProducts(em: EntityManager, companyId: string, ids: string[]): Promise<Array<{ id: string; name: string | null }>> {
  if (!ids.length) return Promise.resolve([]);
  return em.execute(`select id, name from products where company_id = ? and id = any(?::uuid[]) order by name, id`, [companyId, pgArray(ids)]);
}

/** A secret the service keeps for itself: the first process to ask stores `generated`; every later one reads it. */
export async function serviceSecret(em: EntityManager, name: string, generated: string): Promise<string> {
  await em.execute(`insert into service_secrets (name, value) values (?, ?) on conflict (name) do nothing`, [name, generated]);
  const [row] = await em.execute<Array<{ value: string }>>(`select value from service_secrets where name = ?`, [name]);
  return row.value;
}

/**
 * Spends a solved challenge: true the first time its signature is seen, false for a replay. Expired
 * signatures (their challenge is refused anyway) are deleted a few at a time.
 */
export async function spendChallenge(em: EntityManager, signature: string, expiresAt: Date): Promise<boolean> {
  await em.execute(`delete from altcha_spent where ctid = any(array(select ctid from altcha_spent where expires_at < now() limit 20))`);
  const rows = await em.execute(`insert into altcha_spent (signature, expires_at) values (?, ?) on conflict do nothing returning signature`, [signature, expiresAt]);
  return rows.length === 1;
}

/** A consent record of a lead. */
export function insertConsent(em: EntityManager, v: { leadId: string; text: string; version: string; source: 'form' | 'api' | 'import'; siteKeyId: string | null }): Promise<unknown> {
  return em.execute(`insert into lead_consents (lead_id, purpose, text, version, source, site_key_id) values (?, 'contact', ?, ?, ?, ?)`, [
    v.leadId,
    v.text,
    v.version,
    v.source,
    v.siteKeyId,
  ]);
}

/**
 * Queues the visitor's confirmation mail unless one to the same address was queued within the hour
 * (under a transaction lock on the address, so two requests at once queue one). True when queued.
 */
export async function queueConfirmation(em: EntityManager, v: { leadId: string; storeId: string; email: string; locale: string }): Promise<boolean> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended('visitor_confirmation:' || ?, 0))`, [v.email]);
  const rows = await em.execute(
    `insert into visitor_confirmations (lead_id, store_id, email, locale)
       select ?, ?, ?, ? where not exists (
         select 1 from visitor_confirmations where email = ? and created_at > now() - interval '1 hour')
     returning id`,
    [v.leadId, v.storeId, v.email, v.locale, v.email],
  );
  return rows.length === 1;
}

/** A confirmation to send, with the store's name. */
export interface ConfirmationRow {
  id: string;
  email: string;
  locale: 'en' | 'fr';
  attempts: number;
  store_name: string | null;
}

/** Up to `limit` due confirmations, locked for this transaction (another sender skips them); none to a person who withdrew their contact consent. */
export function claimConfirmations(em: EntityManager, limit: number): Promise<ConfirmationRow[]> {
  return em.execute(
    `select vc.id, vc.email, vc.locale, vc.attempts, coalesce(crl.name, rl.name) as store_name
       from visitor_confirmations vc
       left join company_retailer_locations crl on crl.id = vc.store_id
       left join retailer_locations rl on rl.id = crl.retailer_location_id
      where vc.sent_at is null and vc.next_attempt_at <= now() and vc.attempts < 8
        and not ${contactWithdrawnSql('vc.lead_id')}
      order by vc.next_attempt_at
      limit ? for update of vc skip locked`,
    [limit],
  );
}

/** Marks a confirmation sent, or failed for now (retried after `retryMs`; given up after 8 attempts). */
export function markConfirmation(em: EntityManager, id: string, error: string | null, retryMs: number): Promise<unknown> {
  return error === null
    ? em.execute(`update visitor_confirmations set sent_at = now(), attempts = attempts + 1, last_error = null where id = ?`, [id])
    : em.execute(
        `update visitor_confirmations set attempts = attempts + 1, last_error = ?, next_attempt_at = now() + (? || ' milliseconds')::interval where id = ?`,
        [error.slice(0, 500), String(retryMs), id],
      );
}

/** Whether a working key allows this exact origin. */
export async function originAllowed(em: EntityManager, origin: string): Promise<boolean> {
  const rows = await em.execute(`select 1 from site_keys where revoked_at is null and ? = any(allowed_origins) limit 1`, [origin]);
  return rows.length > 0;
}
