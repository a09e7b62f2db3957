import type { SearchDocument, SearchSource } from '../types';
import type { Execute } from '../../db/sql';

/** Serializes outbox batches, index creation and alias swaps across processes (pg advisory lock). */
export const SEARCH_LOCK = 727_001;

/** Held for as long as a process is the one running the outbox indexer (src/db/leader.ts). */
export const SEARCH_INDEXER_LEADER = 727_002;

/** With the document's name, held by the one reindex of that document that may run (src/db/leader.ts). */
export const SEARCH_REINDEX_LOCK = 727_003;

const NAME_RE = /^[a-z_][a-z0-9_]*$/;
const TRIGGER_PREFIX = 'leadnet_search_';

/** The tables feeding a document: its declared sources, else its root table, one document per row. */
export function sourcesOf(doc: SearchDocument): SearchSource[] {
  if (doc.sources?.length) return doc.sources;
  const table = doc.from.trim().split(/\s+/)[0];
  return [{ table, ids: 'select ($1).id' }];
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

export interface TriggerDefinition {
  table: string;
  name: string;
  sql: string;
}

/** One row trigger per (document, source table): every insert, update and delete writes the outbox. */
export function triggerDefinitions(docs: SearchDocument[]): TriggerDefinition[] {
  const defs: TriggerDefinition[] = [];
  for (const doc of docs) {
    if (!NAME_RE.test(doc.name)) throw new Error(`Search document name ${doc.name} must be a lower-case identifier`);
    sourcesOf(doc).forEach((source, i) => {
      const name = `${TRIGGER_PREFIX}${doc.name}${i ? `_${i}` : ''}`;
      defs.push({
        table: source.table,
        name,
        sql: `create or replace trigger ${name} after insert or update or delete on ${source.table}
                for each row execute function leadnet_search_outbox(${literal(doc.name)}, ${literal(source.ids)})`,
      });
    });
  }
  return defs;
}

/**
 * Installs the outbox triggers of these documents and drops leadnet search triggers no document
 * declares any more. Idempotent; run when the Elasticsearch backend starts and before a reindex.
 */
export async function syncTriggers(execute: Execute, docs: SearchDocument[]): Promise<void> {
  const wanted = triggerDefinitions(docs);
  const existing: Array<{ name: string; table: string }> = await execute(
    `select t.tgname as name, t.tgrelid::regclass::text as table from pg_trigger t
      where not t.tgisinternal and t.tgname like ?`,
    [`${TRIGGER_PREFIX.replace(/_/g, '\\_')}%`],
  );
  for (const t of existing) {
    if (!wanted.some((w) => w.name === t.name && w.table === t.table)) await execute(`drop trigger if exists ${t.name} on ${t.table}`, []);
  }
  for (const def of wanted) await execute(def.sql, []);
}

/** Waits for the outbox's transaction-scoped lock (`SEARCH_LOCK`): no batch writes to the engine meanwhile. */
export async function lockOutbox(execute: Execute): Promise<void> {
  await execute('select pg_advisory_xact_lock(?)', [SEARCH_LOCK]);
}

/** Takes the outbox's transaction-scoped lock if free; false, at once, when another holds it. */
export async function tryLockOutbox(execute: Execute): Promise<boolean> {
  const [{ locked }] = await execute('select pg_try_advisory_xact_lock(?) as locked', [SEARCH_LOCK]);
  return locked;
}

/** The newest outbox row's id so far (null when empty). */
export async function outboxMark(execute: Execute): Promise<string | null> {
  const [{ mark }] = await execute('select max(id)::text as mark from search_outbox', []);
  return mark;
}

/** The newest outbox row's id and the documents of the rows after `after` (every row without it). */
export async function outboxSince(execute: Execute, after: string | undefined): Promise<{ mark: string | null; documents: string[] | null }> {
  const [row] = await execute(
      `select max(id)::text as mark, array_agg(distinct document) as documents from search_outbox${after ? ' where id > ?::bigint' : ''}`,
    after ? [after] : [],
  );
  return row;
}

/** Whether rows of the range are due now. */
export async function outboxDue(execute: Execute, range: OutboxRange): Promise<boolean> {
  const within = rangeSql(range);
  const [{ due }] = await execute(`select exists(select 1 from search_outbox where ${within.sql} and available_at <= now()) as due`, within.bindings);
  return due;
}

/** The records of the document with a change still in the outbox. */
export async function pendingRecordIds(execute: Execute, doc: SearchDocument): Promise<Set<string>> {
  return new Set((await execute('select distinct record_id::text as id from search_outbox where document = ?', [doc.name])).map((r) => r.id as string));
}

/** Ids queued per statement by `enqueueAll`. */
export const ENQUEUE_BATCH = 50_000;

/**
 * Queues every record of a document (first load of a new index): the ids of its table (the first name
 * of `doc.from`) in id order, `batch` per statement, so each statement stays within the statement
 * timeout however large the table (one statement for a million leads took longer than the default 5 s,
 * and the start failed). A row the document's joins leave out is queued too: the indexer finds no
 * document for it and sends a delete, which a missing document answers with an allowed 404.
 * Returns how many ids were queued.
 */
export async function enqueueAll(execute: Execute, doc: SearchDocument, batch = ENQUEUE_BATCH): Promise<number> {
  const table = doc.from.trim().split(/\s+/)[0];
  let queued = 0;
  for (let after: string | null = null; ; ) {
    const [page]: Array<{ n: number; last: string | null }> = await execute(
      `with page as (select id from ${table} ${after ? 'where id > ?::uuid' : ''} order by id limit ?),
            queued as (insert into search_outbox (document, record_id) select ?, id from page)
       select count(*)::int as n, (select id::text from page order by id desc limit 1) as last from page`,
      after ? [after, batch, doc.name] : [batch, doc.name],
    );
    queued += page.n;
    if (page.n < batch || !page.last) return queued;
    after = page.last;
  }
}

export interface OutboxRow {
  id: string;
  document: string;
  record_id: string;
  attempts: number;
}

/** Which outbox rows a batch may claim: those after outbox id `after` and up to `upTo`, when given. */
export interface OutboxRange {
  after?: string;
  upTo?: string;
}

/** The range's condition on `search_outbox.id` and its bindings (`true` for the whole outbox). */
export function rangeSql({ after, upTo }: OutboxRange): { sql: string; bindings: string[] } {
  const parts = [...(after ? [{ sql: 'id > ?::bigint', value: after }] : []), ...(upTo ? [{ sql: 'id <= ?::bigint', value: upTo }] : [])];
  return { sql: parts.map((p) => p.sql).join(' and ') || 'true', bindings: parts.map((p) => p.value) };
}

/** How many lanes (transactions with changes due) one batch of the background indexer is shared among. */
export const LANES_PER_BATCH = 64;

/**
 * How many of the oldest lanes a batch looks among for those with rows due: one index probe each, so an
 * outage that leaves tens of thousands of lanes waiting out their backoff costs each claim a few
 * milliseconds, not a probe per lane. Due rows of the lanes after them fill the batch.
 */
export const LANES_SCANNED = 1024;

/**
 * Locks up to `limit` due rows, rows another indexer holds skipped.
 *
 * With a range (a write waiting for its own rows, `afterWrite`): the range's oldest first.
 *
 * Without (the background indexer): shared among lanes, the transactions that queued the rows (a lane gains
 * no rows once its transaction has committed). The oldest `LANES_PER_BATCH` lanes with rows due (among the
 * oldest `LANES_SCANNED`) take turns, each its own oldest row per turn, until the batch is full: a change
 * queued behind a million-row import or a first fill (one lane) goes in the next batch, not after the whole
 * backlog, and a lone lane fills the batch alone. When those lanes cannot fill it (a backlog of many small
 * transactions, as an engine outage leaves), the earliest due rows of the lanes after them fill the rest.
 * The lanes are found by a skip scan of `(lane, available_at, id)` that reads each lane's first row (due or
 * not: a lane's first row is its earliest), and each lane's rows are read from there: the deleted rows at
 * the head of a draining lane, which the index keeps until vacuum, are walked once per batch, as a
 * first-in, first-out claim would.
 */
export async function claim(execute: Execute, limit: number, range?: OutboxRange): Promise<OutboxRow[]> {
  if (range) {
    const within = rangeSql(range);
    return execute(
      `select id, document, record_id, attempts from search_outbox
        where available_at <= now() and ${within.sql} order by id limit ? for update skip locked`,
      [...within.bindings, limit],
    );
  }
  // Each lane's rows are read in index order, only as many as the batch takes. Statistics taken before a
  // large import know nothing of its lane, and the planner would read the whole lane with a bitmap scan
  // and sort it (26 ms a batch over a lane of 85,000 rows, against 2 ms): not for this statement. The rows
  // taken are then looked up by an array of their ids: as `id in (...)`, whose size the fill's limit hides
  // from the planner, they were joined to a scan of the whole outbox.
  await execute('set local enable_bitmapscan = off', []);
  const rows = await execute(
    `with recursive lanes(lane, available_at, id, n) as (
       (select lane, available_at, id, 1 from search_outbox order by lane, available_at, id limit 1)
       union all
       select next.lane, next.available_at, next.id, lanes.n + 1 from lanes cross join lateral (
         select o.lane, o.available_at, o.id from search_outbox o where o.lane > lanes.lane order by o.lane, o.available_at, o.id limit 1
       ) next where lanes.n < ?::int
     ),
     due as (select lane, available_at, id from lanes where available_at <= now() limit ?::int),
     turns as (
       select p.id, row_number() over (partition by due.lane order by p.available_at, p.id) as turn
         from due cross join lateral (
           select o.id, o.available_at from search_outbox o
            where o.lane = due.lane and (o.available_at, o.id) >= (due.available_at, due.id) and o.available_at <= now()
            order by o.available_at, o.id limit ?::int
         ) p
     ),
     picked as (select id from turns order by turn, id limit ?::int),
     fill as (
       select o.id from search_outbox o where o.available_at <= now() and o.id not in (select id from picked)
        order by o.available_at, o.id limit ?::int - (select count(*) from picked)
     )
     select id, document, record_id, attempts from search_outbox
      where id = any(array(select id from picked union all select id from fill)) order by id for update skip locked`,
    [LANES_SCANNED, LANES_PER_BATCH, limit, limit, limit],
  );
  await execute('set local enable_bitmapscan to default', []);
  return rows;
}

export async function complete(execute: Execute, ids: string[]): Promise<void> {
  if (ids.length) await execute('delete from search_outbox where id = any(array[?]::bigint[])', [ids]);
}

/** Retry these rows later, each with its error: 1 s, 2 s, 4 s... up to `maxBackoffSeconds`. */
export async function fail(execute: Execute, errors: Map<string, string>, maxBackoffSeconds: number): Promise<void> {
  if (!errors.size) return;
  await execute(
    `update search_outbox o set attempts = o.attempts + 1, last_error = f.error,
            available_at = now() + make_interval(secs => least(?::float8, power(2, o.attempts)))
       from unnest(array[?]::bigint[], array[?]::text[]) as f(id, error)
      where o.id = f.id`,
    [maxBackoffSeconds, [...errors.keys()], [...errors.values()].map((e) => e.slice(0, 2000))],
  );
}
