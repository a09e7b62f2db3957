import type { Execute } from '../../db/sql';
import { fromClause, type SearchDocument } from '../types';
import { CREATED_AT_FIELD, ID_FIELD, PREFIX_FIELD, TEXT_FIELD } from './mapping';

export type Source = Record<string, unknown>;

/**
 * The statement reading documents: the document's own SQL field expressions over its FROM clause,
 * so one definition serves both backends. Values go through `to_jsonb` to arrive typed (numbers,
 * booleans, arrays) whatever the column types.
 */
export function documentsStatement(doc: SearchDocument): string {
  const columns = Object.values(doc.fields).map((f, i) => `to_jsonb(${f.sql}) as f${i}`);
  return `select ${doc.alias}.id as id, to_jsonb(${doc.alias}.created_at) as created_at${columns.map((c) => `, ${c}`).join('')}
            from ${fromClause(doc)} where ${doc.alias}.id = any(array[?]::uuid[])`;
}

/** The Elasticsearch sources of these records, by id; a record that no longer exists is absent. */
export async function buildDocuments(execute: Execute, doc: SearchDocument, ids: string[]): Promise<Map<string, Source>> {
  const out = new Map<string, Source>();
  if (!ids.length) return out;
  if (doc.customIndex) return doc.customIndex.build(execute, ids);
  const entries = Object.entries(doc.fields);
  const rows = await execute(documentsStatement(doc), [ids]);
  for (const row of rows) {
    if (out.has(row.id)) continue;
    const source: Source = { [ID_FIELD]: row.id, [CREATED_AT_FIELD]: isoDate(row.created_at) };
    const text: string[] = [];
    entries.forEach(([name, field], i) => {
      let value = row[`f${i}`] ?? null;
      if (Array.isArray(value)) value = value.filter((v) => v !== null).map((v) => (field.type === 'date' ? isoDate(v) : v));
      else if (value !== null && field.type === 'date') value = isoDate(value);
      source[name] = value;
      if (field.text && !field.scopeOnly && value !== null) text.push(...(Array.isArray(value) ? value.map(String) : [String(value)]));
    });
    source[TEXT_FIELD] = text.join(' ');
    source[PREFIX_FIELD] = text.join(' ');
    out.set(row.id, source);
  }
  return out;
}

/** How many records the document's table holds (its FROM clause). */
export async function recordCount(execute: Execute, doc: SearchDocument): Promise<number> {
  const [{ total }] = await execute(`select count(*)::int as total from ${doc.from}`, []);
  return total;
}

/** The document's next `limit` record ids after `after`, in id order. */
export async function recordIdsAfter(execute: Execute, doc: SearchDocument, after: string, limit: number): Promise<string[]> {
  return (await execute(`select ${doc.alias}.id from ${doc.from} where ${doc.alias}.id > ?::uuid order by ${doc.alias}.id limit ?`, [after, limit])).map((r) => r.id);
}

/** Of these ids, the document's records that exist now. */
export async function existingRecordIds(execute: Execute, doc: SearchDocument, ids: string[]): Promise<string[]> {
  return (await execute(`select ${doc.alias}.id from ${doc.from} where ${doc.alias}.id = any(array[?]::uuid[])`, [ids])).map((r) => r.id);
}

function isoDate(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const d = new Date(value as string);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
