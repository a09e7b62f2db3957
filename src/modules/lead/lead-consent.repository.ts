import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../../db/sql';
import type { ConsentPurpose, NewConsent } from './lead-consent.types';

/** Writes the consents of a lead (source `api`, or `import` for a lead import's), in `em`'s transaction. */
export async function insertApiConsents(em: EntityManager, leadId: string, consents: readonly NewConsent[], source: 'api' | 'import' = 'api'): Promise<void> {
  await insertConsentsOfMany(em, [{ leadId, consents }], source);
}

/** Writes the consents of several leads (a batch create, an import) in one statement, in `em`'s transaction. */
export async function insertConsentsOfMany(
  em: EntityManager,
  items: ReadonlyArray<{ leadId: string; consents: readonly NewConsent[] }>,
  source: 'api' | 'import' = 'api',
): Promise<void> {
  const rows = items.flatMap((item) => item.consents.map((c) => ({ leadId: item.leadId, ...c })));
  if (!rows.length) return;
  await query(em, 
    `insert into lead_consents (lead_id, purpose, text, version, source, given_at)
     select c.lead_id, c.purpose, c.text, c.version, ?, coalesce(c.given_at, now())
       from unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::timestamptz[]) with ordinality as c(lead_id, purpose, text, version, given_at, n)
      order by c.n`,
    [source, rows.map((c) => c.leadId), rows.map((c) => c.purpose), rows.map((c) => c.text), rows.map((c) => c.version), rows.map((c) => c.givenAt)],
  );
}

/**
 * SQL true when the lead `leadId` (an SQL expression) may no longer be written about: it has a `contact`
 * consent and every one of them is withdrawn. A lead with no consent record at all (created before
 * consents were recorded, or by an API client that sent none) is not silenced; a consent given again
 * after a withdrawal lifts it.
 */
export function contactWithdrawnSql(leadId: string): string {
  return `(exists (select 1 from lead_consents wc where wc.lead_id = ${leadId} and wc.purpose = 'contact' and wc.withdrawn_at is not null)
           and not exists (select 1 from lead_consents wc where wc.lead_id = ${leadId} and wc.purpose = 'contact' and wc.withdrawn_at is null))`;
}

/** Of `leadIds`, those whose contact consent is withdrawn (`contactWithdrawnSql`), in one statement. */
export async function withdrawnLeads(em: EntityManager, leadIds: readonly string[]): Promise<Set<string>> {
  if (!leadIds.length) return new Set();
  const rows = await query<{ id: string }>(em, `select l.id from unnest(?::uuid[]) as l(id) where ${contactWithdrawnSql('l.id')}`, [leadIds]);
  return new Set(rows.map((r) => r.id));
}

export interface LeadConsentRow {
  id: string;
  leadId: string;
  purpose: string;
  text: string;
  version: string;
  source: string;
  givenAt: Date;
  withdrawnAt: Date | null;
}

/** The consents of `leadIds`, oldest first, grouped in `leadIds` order (one statement). */
export async function consentsOf(em: EntityManager, leadIds: readonly string[]): Promise<LeadConsentRow[][]> {
  const rows = await query<Record<string, any>>(em, 
    `select id, lead_id, purpose, text, version, source, given_at, withdrawn_at from lead_consents
      where lead_id = any(?::uuid[]) order by given_at, id`,
    [[...leadIds]],
  );
  const by = new Map<string, LeadConsentRow[]>();
  for (const r of rows) {
    const row: LeadConsentRow = {
      id: r.id,
      leadId: r.lead_id,
      purpose: r.purpose,
      text: r.text,
      version: r.version,
      source: r.source,
      givenAt: new Date(r.given_at),
      withdrawnAt: r.withdrawn_at ? new Date(r.withdrawn_at) : null,
    };
    by.set(row.leadId, [...(by.get(row.leadId) ?? []), row]);
  }
  return leadIds.map((id) => by.get(id) ?? []);
}

/**
 * Withdraws the lead's consents of `purpose` that hold (sets `withdrawn_at`) and, for `contact`, stops
 * what was already waiting to be sent about the person: the notification deliveries of the lead still
 * pending or queued for a digest become `skipped` (logged), the visitor confirmations not yet sent are
 * given up. Returns how many consents were withdrawn.
 */
export async function withdrawConsents(em: EntityManager, leadId: string, purpose: ConsentPurpose): Promise<number> {
  const rows = await query(em, 
    `update lead_consents set withdrawn_at = now() where lead_id = ? and purpose = ? and withdrawn_at is null returning id`,
    [leadId, purpose],
  );
  if (purpose === 'contact') {
    await query(em, 
      `with stopped as (
         update notification_deliveries set status = 'skipped', next_attempt_at = null, last_error = 'consent withdrawn'
          where lead_id = ? and status in ('pending', 'queued') returning id)
       insert into notification_delivery_log (delivery_id, status, error) select id, 'skipped', 'consent withdrawn' from stopped`,
      [leadId],
    );
    await query(em, `update visitor_confirmations set attempts = 8, last_error = 'consent withdrawn' where lead_id = ? and sent_at is null`, [leadId]);
  }
  return rows.length;
}
