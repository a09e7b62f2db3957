import type { SearchDocument, Sql } from './types';

/** Words of at least this many letters may carry one typo (PRODUCT.md section 6). */
export const FUZZY_MIN_LENGTH = 4;

/** Only words made of letters take a typo: `shopper12`, `15035550181` or `2026` must match as typed. */
export const isFuzzyCandidate = (word: string): boolean => /^[\p{L}\p{M}]+$/u.test(word);
/** Longer words are matched without typo tolerance (the pattern would only grow). */
export const FUZZY_MAX_LENGTH = 64;

/**
 * The words of `q`: maximal runs of letters and digits (so `anv-2` is `anv` and `2`, as Elasticsearch's
 * tokenizer in `elasticsearch/mapping.ts` splits it), lower-cased, without duplicates. `*`, blank or
 * punctuation only mean no text condition.
 */
export function queryWords(q: string | null | undefined): string[] {
  if (typeof q !== 'string' || q.trim() === '*') return [];
  const words = q.toLowerCase().split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
  return [...new Set(words)];
}

/**
 * The document's `text` fields as one accent- and case-folded string. Built with `||` (immutable),
 * not `concat_ws` (stable), so that a resource can store it in a generated column (`textSql`, see
 * products in `Migration20261122013000_search`) or index the expression itself.
 */
export function textExpression(doc: SearchDocument): string | null {
  const fields = Object.values(doc.fields).filter((f) => f.text && !f.scopeOnly);
  if (!fields.length) return null;
  const parts = fields.map((f) => (f.array ? `coalesce(array_to_string(${f.sql}, ' '), '')` : `coalesce(${f.sql}::text, '')`));
  return `leadnet_search_text(${parts.join(" || ' ' || ")})`;
}

/** What `q` reads: the stored text when the document has one, else the folded fields. */
export function searchText(doc: SearchDocument): string | null {
  return doc.textSql ?? textExpression(doc);
}

/**
 * Every word must start a word of the text (accent- and case-insensitive), with one typo allowed on
 * words of FUZZY_MIN_LENGTH+ letters (no digits): `leadnet_word_pattern` turns each word into a regular
 * expression, which the trigram index on the text expression can serve.
 */
export function textCondition(doc: SearchDocument, words: string[]): Sql {
  if (!words.length) return { sql: 'true', bindings: [] };
  const text = searchText(doc);
  if (!text) return { sql: 'false', bindings: [] };
  return {
    sql: words.map(() => `${text} ~ leadnet_word_pattern(?, 'fuzzy')`).join(' and '),
    bindings: words,
  };
}

/**
 * Relevance of a matching row: per word 4 when it is a whole word of the text, plus 2 when it starts
 * one exactly; a word matched only through a typo adds nothing. So exact matches rank above fuzzy
 * ones, whole words above prefixes. Null without words or text fields (nothing to rank).
 */
export function relevance(doc: SearchDocument, words: string[]): Sql | null {
  const text = searchText(doc);
  if (!words.length || !text) return null;
  return {
    sql: words
      .map(() => `(case when ${text} ~ leadnet_word_pattern(?, 'word') then 6 when ${text} ~ leadnet_word_pattern(?, 'prefix') then 2 else 0 end)`)
      .join(' + '),
    bindings: words.flatMap((w) => [w, w]),
  };
}
