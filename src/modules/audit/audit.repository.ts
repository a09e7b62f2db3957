import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray, query } from '../../db/sql';

/** The chain of entries without a company (the platform's). */
export const PLATFORM_CHAIN = '00000000-0000-0000-0000-000000000000';

/** What the first entry of a chain links to. */
export const GENESIS_HASH = '0'.repeat(64);

/** A chain's head: its last sequence number and hash. */
export interface ChainHeadRow {
  last_seq: string | number;
  last_hash: string;
}

/** An `audit_entries` row as read back; `at_text` is `at` in UTC with milliseconds, as it was hashed. */
export interface AuditEntryRow {
  id: string;
  chain_id: string;
  company_id: string | null;
  seq: string | number;
  at_text: string;
  actor_type: string;
  actor_id: string | null;
  api_key_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: unknown;
  prev_hash: string;
  hash: string;
}

/** What an append writes (its hash computed from the rest). */
export interface NewAuditEntry {
  id: string;
  chainId: string;
  seq: number;
  at: string;
  actorType: string;
  actorId: string | null;
  apiKeyId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  /** The canonical JSON text of the details. */
  details: string;
  prevHash: string;
  hash: string;
}

const COLUMNS = `id, chain_id, company_id, seq, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at_text, actor_type, actor_id,
  api_key_id, action, target_type, target_id, details, prev_hash, hash`;

/**
 * The chain's head, created when missing and locked (`on conflict do update` locks the row) until the
 * caller's transaction ends: appends to one chain take turns, each reading the head its predecessor wrote.
 */
export async function lockChainHead(em: EntityManager, chainId: string): Promise<ChainHeadRow> {
  const [row] = await em.execute<ChainHeadRow[]>(
    `insert into audit_chains (chain_id) values (?) on conflict (chain_id) do update set chain_id = excluded.chain_id returning last_seq, last_hash`,
    [chainId],
  );
  return row;
}

/** Writes the entry and moves its chain's head to it, in one statement. */
export async function appendEntry(em: EntityManager, e: NewAuditEntry): Promise<void> {
  await em.execute(
    `with e as (
       insert into audit_entries (id, chain_id, seq, at, actor_type, actor_id, api_key_id, action, target_type, target_id, details, prev_hash, hash)
       values (?, ?, ?, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?) returning chain_id, seq, hash)
     update audit_chains c set last_seq = e.seq, last_hash = e.hash from e where c.chain_id = e.chain_id`,
    [e.id, e.chainId, e.seq, e.at, e.actorType, e.actorId, e.apiKeyId, e.action, e.targetType, e.targetId, e.details, e.prevHash, e.hash],
  );
}

/** The filters of a log page; null: any. */
export interface AuditFilter {
  actions: string[] | null;
  targetType: string | null;
  targetId: string | null;
  actorId: string | null;
  atFrom: Date | null;
  atTo: Date | null;
}

/** A page of a chain, highest sequence first, below `before` (a sequence number) when given: read along `(chain_id, seq)`. */
export function logPage(em: EntityManager, chainId: string, f: AuditFilter, before: number | null, limit: number): Promise<AuditEntryRow[]> {
  return query<AuditEntryRow>(
    em,
    `select ${COLUMNS} from audit_entries
      where chain_id = ?::uuid and (?::bigint is null or seq < ?::bigint)
        and (?::text[] is null or action = any(?::text[]))
        and (?::text is null or target_type = ?::text) and (?::text is null or target_id = ?::text) and (?::text is null or actor_id = ?::text)
        and (?::timestamptz is null or at >= ?::timestamptz) and (?::timestamptz is null or at < ?::timestamptz)
      order by seq desc limit ?`,
    [
      chainId, before, before,
      f.actions && pgArray(f.actions), f.actions && pgArray(f.actions),
      f.targetType, f.targetType, f.targetId, f.targetId, f.actorId, f.actorId,
      f.atFrom, f.atFrom, f.atTo, f.atTo,
      limit,
    ],
  );
}

/** Entries of a chain after sequence `after`, in order: `verify` reads a chain page by page. */
export function chainPage(em: EntityManager, chainId: string, after: number, limit: number): Promise<AuditEntryRow[]> {
  return query<AuditEntryRow>(em, `select ${COLUMNS} from audit_entries where chain_id = ?::uuid and seq > ?::bigint order by seq limit ?`, [chainId, after, limit]);
}

/** A chain's head, or undefined when it has none. */
export async function chainHead(em: EntityManager, chainId: string): Promise<ChainHeadRow | undefined> {
  const [row] = await query<ChainHeadRow>(em, `select last_seq, last_hash from audit_chains where chain_id = ?::uuid`, [chainId]);
  return row;
}

/**
 * The next chain after `after` (null: the first), in id order, that has a head or an entry (a head
 * removed behind the log's back still leaves its entries to check): two index lookups.
 */
export async function nextChain(em: EntityManager, after: string | null): Promise<string | null> {
  const [row] = await query<{ chain_id: string | null }>(
    em,
    `select least((select chain_id from audit_chains where ?::uuid is null or chain_id > ?::uuid order by chain_id limit 1),
                  (select chain_id from audit_entries where ?::uuid is null or chain_id > ?::uuid order by chain_id limit 1)) as chain_id`,
    [after, after, after, after],
  );
  return row?.chain_id ?? null;
}

/** Whether a company exists or its chain does (a company gone keeps its log). */
export async function chainKnown(em: EntityManager, companyId: string): Promise<boolean> {
  const rows = await query(
    em,
    `select 1 from companies where id = ?::uuid union all select 1 from audit_chains where chain_id = ?::uuid limit 1`,
    [companyId, companyId],
  );
  return rows.length > 0;
}
