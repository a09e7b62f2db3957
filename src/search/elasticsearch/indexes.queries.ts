import type { Execute } from '../../db/sql';
import type { SearchDocument } from '../types';

/*
 * The registry of the engine's indexes (`search_indexes`): per document, its live index and any being
 * built by a reindex. Rows change under the outbox's lock (`lockOutbox`), as the alias moves.
 */

/** The document's indexes, oldest first, and whether each is live. */
export async function indexStates(execute: Execute, doc: SearchDocument): Promise<Array<{ index: string; live: boolean }>> {
  const rows = await execute('select index_name, state from search_indexes where document = ? order by created_at', [doc.name]);
  return rows.map((r) => ({ index: r.index_name, live: r.state === 'live' }));
}

/** The document's indexes and their states. */
export function documentIndexRows(execute: Execute, doc: SearchDocument): Promise<Array<{ index_name: string; state: string }>> {
  return execute('select index_name, state from search_indexes where document = ?', [doc.name]);
}

/** The document's indexes being built: none, unless a reindex runs or one died. */
export async function buildingIndexNames(execute: Execute, doc: SearchDocument): Promise<string[]> {
  return (await execute(`select index_name from search_indexes where document = ? and state = 'building'`, [doc.name])).map((r) => r.index_name);
}

/** The document's live index, if registered. */
export async function liveIndexNames(execute: Execute, doc: SearchDocument): Promise<string[]> {
  return (await execute(`select index_name from search_indexes where document = ? and state = 'live'`, [doc.name])).map((r) => r.index_name);
}

/** The document's indexes but `index`. */
export async function otherIndexNames(execute: Execute, doc: SearchDocument, index: string): Promise<string[]> {
  return (await execute('select index_name from search_indexes where document = ? and index_name <> ?', [doc.name, index])).map((r) => r.index_name);
}

export async function registerBuilding(execute: Execute, doc: SearchDocument, index: string): Promise<void> {
  await execute(`insert into search_indexes (index_name, document, state) values (?, ?, 'building')`, [index, doc.name]);
}

export async function registerLive(execute: Execute, doc: SearchDocument, index: string): Promise<void> {
  await execute(`insert into search_indexes (index_name, document, state) values (?, ?, 'live')`, [index, doc.name]);
}

export async function markLive(execute: Execute, index: string): Promise<void> {
  await execute(`update search_indexes set state = 'live' where index_name = ?`, [index]);
}

export async function unregisterIndex(execute: Execute, index: string): Promise<void> {
  await execute('delete from search_indexes where index_name = ?', [index]);
}

/** Every index of the document leaves the registry. */
export async function unregisterDocument(execute: Execute, doc: SearchDocument): Promise<void> {
  await execute('delete from search_indexes where document = ?', [doc.name]);
}

/** Every index of the document but `index` leaves the registry. */
export async function unregisterOthers(execute: Execute, doc: SearchDocument, index: string): Promise<void> {
  await execute('delete from search_indexes where document = ? and index_name <> ?', [doc.name, index]);
}
