import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { SearchDocument, SearchField } from '../types';

/** Fields every index has besides the document's own: the record id and creation time (default
 * order and tie-break), and the `q` text twice: whole words, and every word's prefixes. */
export const ID_FIELD = 'leadnet_id';
export const CREATED_AT_FIELD = 'leadnet_created_at';
export const TEXT_FIELD = 'leadnet_q';
export const PREFIX_FIELD = 'leadnet_q_prefix';
const RESERVED = new Set([ID_FIELD, CREATED_AT_FIELD, TEXT_FIELD, PREFIX_FIELD]);

/** Deepest `from + size` a search may reach (PostgreSQL has no limit; deeper pages are 400 here). */
export const MAX_RESULT_WINDOW = 1_000_000;
/** Longest word prefix indexed for word-prefix matching. */
export const MAX_PREFIX_LENGTH = 64;

function fieldMapping(field: SearchField): estypes.MappingProperty {
  switch (field.type) {
    case 'string':
    case 'uuid':
      return { type: 'keyword' };
    case 'number':
      return { type: 'double' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'date', format: 'strict_date_optional_time||epoch_millis' };
  }
}

/**
 * Settings and explicit mapping of a document's index. One shard, so that facet counts are exact
 * (`doc_count_error_upper_bound` 0). Words are split on anything but letters and digits, lower-cased
 * and ASCII-folded, as PostgreSQL's `leadnet_search_text` folds them.
 */
export function indexDefinition(doc: SearchDocument): { settings: estypes.IndicesIndexSettings; mappings: estypes.MappingTypeMapping } {
  const definition = baseDefinition(doc);
  return {
    settings: { ...definition.settings, ...DURABLE },
    mappings: { ...definition.mappings, _meta: { [VERSION_META]: versionOf(definition) } },
  };
}

/**
 * Every index acknowledges a write only once it is on disk (the engines' default, which an index template
 * such as "tune for indexing speed"'s `async` would otherwise override): the outbox deletes a change when
 * the engine acknowledges it, so a crashed cluster must not lose what it acknowledged. It is not part of
 * the definition's version, as it changes nothing an index holds.
 */
export const DURABLE: estypes.IndicesIndexSettings = { translog: { durability: 'request' } };

/** Where an index records the version of the definition it was created with (`mappings._meta`). */
export const VERSION_META = 'leadnet_version';

/**
 * The version of a document's index definition: a hash of its settings and mapping. An index created
 * with another version is outdated: a changed mapping ships as a new index, built and swapped in by the
 * zero-downtime reindex (`ElasticsearchSearchBackend.upgradeOutdated`).
 */
export function definitionVersion(doc: SearchDocument): string {
  return versionOf(baseDefinition(doc));
}

function versionOf(definition: unknown): string {
  return createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 12);
}

function baseDefinition(doc: SearchDocument): { settings: estypes.IndicesIndexSettings; mappings: estypes.MappingTypeMapping } {
  if (doc.customIndex) return doc.customIndex.definition() as { settings: estypes.IndicesIndexSettings; mappings: estypes.MappingTypeMapping };
  const properties: Record<string, estypes.MappingProperty> = {
    [ID_FIELD]: { type: 'keyword' },
    [CREATED_AT_FIELD]: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
    [TEXT_FIELD]: { type: 'text', analyzer: 'leadnet_folded' },
    [PREFIX_FIELD]: { type: 'text', analyzer: 'leadnet_prefix', search_analyzer: 'leadnet_folded' },
  };
  for (const [name, field] of Object.entries(doc.fields)) {
    if (RESERVED.has(name)) throw new Error(`Search document ${doc.name}: field name ${name} is reserved`);
    properties[name] = fieldMapping(field);
  }
  return {
    settings: {
      number_of_shards: 1,
      max_result_window: MAX_RESULT_WINDOW,
      analysis: {
        tokenizer: { leadnet_words: { type: 'pattern', pattern: '[^\\p{L}\\p{N}\\p{M}]+' } },
        filter: { leadnet_edge: { type: 'edge_ngram', min_gram: 1, max_gram: MAX_PREFIX_LENGTH } },
        analyzer: {
          leadnet_folded: { type: 'custom', tokenizer: 'leadnet_words', filter: ['lowercase', 'asciifolding'] },
          leadnet_prefix: { type: 'custom', tokenizer: 'leadnet_words', filter: ['lowercase', 'asciifolding', 'leadnet_edge'] },
        },
      },
    },
    mappings: { dynamic: 'strict', properties },
  };
}
