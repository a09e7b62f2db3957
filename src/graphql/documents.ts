import type { DocumentNode } from 'graphql';
import { BudgetedCache, stringBytes } from '../memory';

/**
 * Heap a parsed document takes per character of its text (syntax tree, locations and the text itself),
 * measured at 64 to 108 over documents of 580 to 16,700 characters; rounded up.
 */
export const PARSED_BYTES_PER_CHARACTER = 128;

/** Apollo's store of parsed, validated documents, by query hash, within the `graphql_parsed` budget. */
export function parsedDocuments(): BudgetedCache<string, DocumentNode> {
  return new BudgetedCache('graphql_parsed', {
    sizeOf: (document, key) => stringBytes(key) + PARSED_BYTES_PER_CHARACTER * (document.loc?.end ?? 1024),
  });
}

/** Apollo's automatic persisted queries (query texts by hash), within the `graphql_persisted` budget. */
export function persistedQueries(): BudgetedCache<string, string> {
  return new BudgetedCache('graphql_persisted', { sizeOf: (text, key) => stringBytes(key) + stringBytes(text) });
}
