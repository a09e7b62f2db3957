import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from '../../context';
import { ORGANISATION_USER_ID, type Caller } from '../../auth/caller';
import { about, authorize, can } from '../../access/policy';
import { notFound, Validator } from '../../errors';
import { isUuid } from '../../search/list';
import { auditPolicy, defaultAuditCompany } from './audit.policy';
import {
  appendEntry,
  chainHead,
  chainKnown,
  chainPage,
  GENESIS_HASH,
  lockChainHead,
  logPage,
  nextChain,
  PLATFORM_CHAIN,
  type AuditEntryRow,
  type NewAuditEntry,
} from './audit.repository';
import { AuditActorType, type AuditAction, type AuditDetails, type AuditEntry, type AuditLogPage, type AuditLogWhere, type AuditValue } from './audit.types';

/** Who acted, as an entry names it: never a secret (an API key by its id only). */
export type AuditActor =
  | { type: AuditActorType.USER; userId: string; apiKeyId?: string | null }
  | { type: AuditActorType.OPERATOR }
  | { type: AuditActorType.SYSTEM; job: string };

/** The platform operator at the command line (`leadnet`). */
export const CLI_ACTOR: AuditActor = { type: AuditActorType.OPERATOR };

/** A job of the service (e.g. `retention`), by its name. */
export const systemActor = (job: string): AuditActor => ({ type: AuditActorType.SYSTEM, job });

/**
 * What was acted on: the kind of record, its id, and the company whose chain gets the entry (null: the
 * platform's chain, e.g. a retailer's or the operator's own users).
 */
export interface AuditTarget {
  type: string;
  id: string | null;
  companyId: string | null;
}

/**
 * The actor of a request's caller; a context without a caller is the command line's (src/cli/runtime.ts
 * `Session.context`), the platform operator's. A caller acting for an organisation without a user (the
 * public contact form, webhook deliveries) is the system's `organisation`.
 */
export function actorOf(caller: Caller | AuditActor | null | undefined): AuditActor {
  if (!caller) return CLI_ACTOR;
  if ('type' in caller) return caller;
  if (caller.userId === ORGANISATION_USER_ID) return systemActor('organisation');
  return { type: AuditActorType.USER, userId: caller.userId, apiKeyId: caller.apiKeyId ?? null };
}

/** A JSON value in one canonical form: object keys sorted, no NUL, non-finite numbers as null. */
function canonicalValue(value: unknown): AuditValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.replace(/\u0000/g, '');
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (typeof value === 'object') {
    const out: { [key: string]: AuditValue } = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key.replace(/\u0000/g, '')] = canonicalValue(v);
    }
    return out;
  }
  return String(value);
}

/** The canonical JSON text of `details` (what is stored and hashed). */
export function canonicalDetails(details: unknown): string {
  const value = canonicalValue(details ?? {});
  return JSON.stringify(value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {});
}

/** The fields an entry's hash covers: all it stores but the hashes. */
type HashedContent = Omit<NewAuditEntry, 'prevHash' | 'hash'>;

/** SHA-256 (hex) of the previous entry's hash, a newline and this entry's canonical content. */
export function entryHash(prevHash: string, c: HashedContent): string {
  const content = JSON.stringify([c.id, c.chainId, c.seq, c.at, c.actorType, c.actorId, c.apiKeyId, c.action, c.targetType, c.targetId, c.details]);
  return createHash('sha256').update(`${prevHash}\n${content}`).digest('hex');
}

/**
 * Appends one entry to the audit log, in `em`'s transaction: written with the change it records and
 * rolled back with it (called outside a transaction, it runs in one of its own). The chain is the
 * target's company's (the platform's without one); appends to a chain take turns on its head row.
 *
 * - `caller`: the request's caller (`ctx.caller`), an `AuditActor` (`CLI_ACTOR`, `systemActor('retention')`),
 *   or null for the command line.
 * - `action`: what was done (`AuditAction`, e.g. `person.erased`).
 * - `target`: `{ type, id, companyId }` of the record acted on (`{ type: 'lead', id, companyId }`).
 * - `details`: a small JSON object of what changed (field names, old and new values of settings,
 *   counts). Never personal data (names, e-mails, phones, addresses, free text about a person), never
 *   a key or a secret: entries cannot be erased.
 */
export async function record(em: EntityManager, caller: Caller | AuditActor | null | undefined, action: AuditAction, target: AuditTarget, details: AuditDetails = {}): Promise<void> {
  if (!em.isInTransaction()) {
    await em.transactional((tx) => record(tx as EntityManager, caller, action, target, details));
    return;
  }
  const chainId = target.companyId ?? PLATFORM_CHAIN;
  const actor = actorOf(caller);
  const head = await lockChainHead(em, chainId);
  const content: HashedContent = {
    id: randomUUID(),
    chainId,
    seq: Number(head.last_seq) + 1,
    at: new Date().toISOString(),
    actorType: actor.type,
    actorId: actor.type === AuditActorType.USER ? actor.userId : actor.type === AuditActorType.SYSTEM ? actor.job : null,
    apiKeyId: actor.type === AuditActorType.USER ? (actor.apiKeyId ?? null) : null,
    action,
    targetType: target.type,
    targetId: target.id,
    details: canonicalDetails(details),
  };
  await appendEntry(em, { ...content, prevHash: head.last_hash, hash: entryHash(head.last_hash, content) });
}

/** The one function other modules call: `audit.record(em, caller, action, target, details)`. */
export const audit = { record };

/** `{ from, to }` for each key of `after` whose value differs from `before`'s (settings changes, non-personal values only). */
export function changes<T extends object>(before: T, after: T, keys: readonly (keyof T & string)[]): AuditDetails {
  const out: AuditDetails = {};
  for (const key of keys) {
    const a = canonicalValue(before[key]);
    const b = canonicalValue(after[key]);
    if (JSON.stringify(a) !== JSON.stringify(b)) out[key] = { from: a, to: b };
  }
  return out;
}

function contentOf(row: AuditEntryRow): HashedContent {
  return {
    id: row.id,
    chainId: row.chain_id,
    seq: Number(row.seq),
    at: row.at_text,
    actorType: row.actor_type,
    actorId: row.actor_id,
    apiKeyId: row.api_key_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: canonicalDetails(row.details),
  };
}

export function toAuditEntry(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    companyId: row.company_id,
    sequence: Number(row.seq),
    at: new Date(row.at_text),
    actorType: row.actor_type as AuditActorType,
    actorId: row.actor_id,
    apiKeyId: row.api_key_id,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: JSON.parse(canonicalDetails(row.details)),
    hash: row.hash,
    previousHash: row.prev_hash,
  };
}

/** The most entries one page lists. */
export const MAX_AUDIT_PAGE = 200;

/**
 * A page of one chain (null: the platform's), newest first, after the cursor `after` (a sequence
 * number): one statement along the chain's index whatever the page's size. No access check: the
 * GraphQL field checks through `AuditService`, the command line is the operator's.
 */
export async function auditLogPage(em: EntityManager, companyId: string | null, where: AuditLogWhere | null | undefined, first: number, after: string | null | undefined): Promise<AuditLogPage> {
  const v = new Validator();
  if (!Number.isInteger(first) || first < 1 || first > MAX_AUDIT_PAGE) v.add('first', 'invalid', `must be 1 to ${MAX_AUDIT_PAGE}`);
  const before = after === null || after === undefined ? null : /^[1-9]\d{0,14}$/.test(after) ? Number(after) : NaN;
  if (Number.isNaN(before)) v.add('after', 'invalid', 'is not a cursor of this log');
  const at = (d: Date | null | undefined, field: string) => {
    if (d === null || d === undefined) return null;
    if (!(d instanceof Date) || Number.isNaN(d.getTime())) v.add(field, 'invalid', 'is not a date');
    return d;
  };
  const text = (s: string | null | undefined, field: string) => {
    if (s === null || s === undefined) return null;
    if (s.length > 255 || s.includes('\u0000')) v.add(field, 'invalid', 'is at most 255 characters');
    return s;
  };
  const actions = where?.action ?? null;
  if (actions && (actions.length > 50 || actions.some((a) => typeof a !== 'string' || a.length > 100))) v.add('action', 'invalid', 'is at most 50 actions');
  const filter = {
    actions,
    targetType: text(where?.targetType, 'target_type'),
    targetId: text(where?.targetId, 'target_id'),
    actorId: text(where?.actorId, 'actor_id'),
    atFrom: at(where?.atFrom, 'at_from'),
    atTo: at(where?.atTo, 'at_to'),
  };
  v.throwIfAny();
  const rows = await logPage(em, companyId ?? PLATFORM_CHAIN, filter, before, first + 1);
  const entries = rows.slice(0, first).map(toAuditEntry);
  return { entries, hasNextPage: rows.length > first, endCursor: entries.length ? String(entries[entries.length - 1].sequence) : null };
}

/** The audit log through GraphQL, as audit.policy.ts decides. */
export class AuditService {
  constructor(private readonly ctx: Context) {}

  async log(companyId: string | null | undefined, where: AuditLogWhere | null | undefined, first: number, after: string | null | undefined): Promise<AuditLogPage> {
    const caller = this.ctx.caller;
    authorize(caller, 'read', auditPolicy);
    const company = companyId ?? defaultAuditCompany(caller!);
    if (company !== null) {
      // Another company's log is out of scope, as if it did not exist.
      if (!isUuid(company) || !can(caller, 'visible', about(auditPolicy, { companyId: company }))) throw notFound('Company', company);
      if (!(await chainKnown(this.ctx.em, company))) throw notFound('Company', company);
    }
    authorize(caller, 'read', about(auditPolicy, { companyId: company }));
    return auditLogPage(this.ctx.em, company, where, first, after);
  }
}

/** The first problem `verify` found in a chain. */
export interface ChainProblem {
  /** `changed`: an entry's content no longer matches its hash; `removed`: entries are missing; `broken_link`: an entry does not link to its predecessor. */
  kind: 'changed' | 'removed' | 'broken_link' | 'head_mismatch';
  /** The sequence number of the entry concerned (the first missing one for `removed`). */
  sequence: number;
  /** The entry's id, when it is there. */
  entryId: string | null;
  message: string;
}

export interface ChainReport {
  /** The chain's company; null: the platform's chain. */
  companyId: string | null;
  /** Entries read. */
  entries: number;
  /**
   * The last entry found intact (0 and the genesis hash: none). Kept outside the database, it shows a
   * later rewrite of the chain from any point before it (the chain alone cannot: see docs/operations.md).
   */
  lastSequence: number;
  lastHash: string;
  problem: ChainProblem | null;
}

/** Entries read per statement while verifying: memory stays bounded whatever the chain's length. */
export const VERIFY_PAGE = 1000;

/**
 * Walks a chain in sequence order, page by page, checking each entry's hash against its content and its
 * link to the one before, the numbering (1, 2, 3...) and the head's last entry; stops at the first
 * problem.
 */
export async function verifyChain(em: EntityManager, chainId: string, pageSize = VERIFY_PAGE): Promise<ChainReport> {
  const companyId = chainId === PLATFORM_CHAIN ? null : chainId;
  let expected = 1;
  let prevHash = GENESIS_HASH;
  const report = (entries: number, problem: ChainProblem | null): ChainReport => ({ companyId, entries, lastSequence: expected - 1, lastHash: prevHash, problem });
  let read = 0;
  for (;;) {
    const rows = await chainPage(em, chainId, expected - 1, pageSize);
    for (const row of rows) {
      const seq = Number(row.seq);
      read++;
      if (seq !== expected) {
        const last = seq - 1;
        return report(read, {
          kind: 'removed',
          sequence: expected,
          entryId: null,
          message: `entr${last === expected ? `y ${expected} was` : `ies ${expected} to ${last} were`} removed (the chain goes from ${expected - 1} to ${seq})`,
        });
      }
      if (row.prev_hash !== prevHash) {
        return report(read, {
          kind: 'broken_link',
          sequence: seq,
          entryId: row.id,
          message: `entry ${seq} does not link to entry ${seq - 1} (its previous hash differs): entry ${seq - 1} was changed or replaced, or this link was`,
        });
      }
      if (entryHash(row.prev_hash, contentOf(row)) !== row.hash) {
        return report(read, { kind: 'changed', sequence: seq, entryId: row.id, message: `entry ${seq} (${row.action}) was changed: its content does not match its hash` });
      }
      prevHash = row.hash;
      expected++;
    }
    if (rows.length < pageSize) break;
  }
  const last = expected - 1;
  const head = await chainHead(em, chainId);
  if (!head) {
    return report(read, last ? { kind: 'head_mismatch', sequence: last, entryId: null, message: `the chain's head is missing (its last entry is ${last})` } : null);
  }
  const headSeq = Number(head.last_seq);
  if (headSeq > last) {
    return report(read, {
      kind: 'removed',
      sequence: last + 1,
      entryId: null,
      message: `entr${headSeq === last + 1 ? `y ${headSeq} was` : `ies ${last + 1} to ${headSeq} were`} removed from the end (the head is at ${headSeq}, the last entry at ${last})`,
    });
  }
  if (headSeq !== last || head.last_hash !== prevHash) {
    return report(read, { kind: 'head_mismatch', sequence: last, entryId: null, message: `the chain's head (entry ${headSeq}) does not match its last entry (${last})` });
  }
  return report(read, null);
}

/** Verifies one company's chain (null: the platform's), or with `all` every chain, one at a time. */
export async function verifyChains(em: EntityManager, options: { companyId?: string | null; all: boolean; pageSize?: number }): Promise<ChainReport[]> {
  if (!options.all) return [await verifyChain(em, options.companyId ?? PLATFORM_CHAIN, options.pageSize)];
  const reports: ChainReport[] = [];
  for (let chain = await nextChain(em, null); chain; chain = await nextChain(em, chain)) {
    reports.push(await verifyChain(em, chain, options.pageSize));
  }
  return reports;
}
