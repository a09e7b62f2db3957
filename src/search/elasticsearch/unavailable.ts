import { badRequest, searchUnavailable } from '../../errors';
import { logger } from '../../logger';

/**
 * What both clients (`@elastic/transport`, `@opensearch-project/opensearch`) name a request that got no
 * usable answer: none at all (refused, reset, or nothing within SEARCH_TIMEOUT_MS), a body that is not
 * JSON, is cut short or is cut off by SEARCH_MAX_RESPONSE_MB (src/search/elasticsearch/bounded.ts; Elastic's
 * client reports its own per-answer bound as a RequestAbortedError), an answer without the engine's product header (a proxy's own page); and
 * `UnexpectedEngineAnswer`, a search answer of another shape (`engineSearch`).
 */
const UNREACHABLE = new Set([
  'ConnectionError',
  'TimeoutError',
  'NoLivingConnectionsError',
  'DeserializationError',
  'ProductNotSupportedError',
  'RequestAbortedError',
  'UnexpectedEngineAnswer',
]);
/**
 * Statuses of an engine that is up but cannot serve now: shedding load (429, a full search queue), no
 * shard available, a cluster block, a proxy's gateway errors.
 */
const UNAVAILABLE_STATUS = new Set([429, 502, 503, 504]);

/** A search answer that is not one: what a misconfigured proxy or another service on the engine's address sends. */
class UnexpectedEngineAnswer extends Error {
  override name = 'UnexpectedEngineAnswer';
}

/**
 * Whether an engine call failed because the engine is down, unreachable or cannot answer now (a 503
 * with `Retry-After` for the caller), as opposed to a request the engine refused (a bug: a 500, or the
 * request's own 400).
 */
export function isEngineUnavailable(e: unknown): boolean {
  if (!e || typeof e !== 'object') return false;
  const err = e as { name?: unknown; statusCode?: unknown; meta?: { statusCode?: unknown } };
  if (typeof err.name === 'string' && UNREACHABLE.has(err.name)) return true;
  const status = err.statusCode ?? err.meta?.statusCode;
  return typeof status === 'number' && UNAVAILABLE_STATUS.has(status);
}

/**
 * Creates an index unless it is there: a create the engine answered `resource_already_exists_exception`
 * went through before, either an earlier attempt of this very request (under load the client's timeout
 * can fire after the cluster acted, and the client retries) or another process's create of the same name.
 */
export async function createIndexOnce(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e) {
    const type = (e as { meta?: { body?: { error?: { type?: unknown } } } })?.meta?.body?.error?.type;
    if (type !== 'resource_already_exists_exception') throw e;
  }
}

/**
 * Runs an engine search with `engineRead`, and refuses an answer without `hits.hits` (a 200 from
 * something that is not the engine) the same way: 503 for the caller, logged once per answer here.
 */
export async function engineSearch<T extends { hits: { hits: unknown[] } }>(call: () => Promise<T>): Promise<T> {
  return engineRead(async () => {
    const answer: unknown = await call();
    const hits = (answer as { hits?: { hits?: unknown } } | null)?.hits;
    if (!Array.isArray(hits?.hits)) {
      logger.error({ answer: JSON.stringify(answer)?.slice(0, 200) }, 'search engine: the answer to a search is not a search result');
      throw new UnexpectedEngineAnswer('the search engine answered something that is not a search result');
    }
    return answer as T;
  });
}

/**
 * An engine's 400 that means "this search is too costly to run", not "this request is wrong": an
 * automaton past Lucene's determinization effort or size, too many boolean clauses. The engine names it
 * as a root cause of its own type, or inside a `query_shard_exception` whose reason quotes it, depending on
 * the node that built the query. The list bounds (src/limits.ts: pattern length and wildcards, words of
 * `q`, nodes of `where`) keep requests below it; an engine configured tighter than its defaults can
 * still refuse one.
 */
const TOO_COMPLEX_TYPE = new Set(['too_complex_to_determinize_exception', 'too_many_clauses', 'too_many_nested_clauses']);
const TOO_COMPLEX_REASON = /determinizing automaton|automaton is too large|too many (nested )?clauses|maxClauseCount/i;

/** The engine's reason when it refused a search as too complex, else null. */
export function tooComplexReason(e: unknown): string | null {
  const meta = (e as { meta?: { statusCode?: unknown; body?: { error?: unknown } } } | null)?.meta;
  if (meta?.statusCode !== 400) return null;
  type Cause = { type?: unknown; reason?: unknown; root_cause?: unknown; caused_by?: unknown };
  const causes: Cause[] = [];
  const collect = (c: unknown, depth: number): void => {
    if (!c || typeof c !== 'object' || depth > 8) return;
    const cause = c as Cause;
    causes.push(cause);
    if (Array.isArray(cause.root_cause)) for (const r of cause.root_cause) collect(r, depth + 1);
    collect(cause.caused_by, depth + 1);
  };
  collect(meta.body?.error, 0);
  const found = causes.find((c) => (typeof c.type === 'string' && TOO_COMPLEX_TYPE.has(c.type)) || (typeof c.reason === 'string' && TOO_COMPLEX_REASON.test(c.reason)));
  return found ? String(found.reason ?? found.type) : null;
}

/**
 * Runs an engine read; an unavailable engine becomes `searchUnavailable()` (503), a search the engine
 * refused as too complex a 400 for the caller, anything else is thrown as it is.
 */
export async function engineRead<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isEngineUnavailable(e)) throw searchUnavailable();
    const reason = tooComplexReason(e);
    if (reason !== null) {
      logger.warn({ reason }, 'search engine: a search refused as too complex');
      throw badRequest('This search is too complex for the search engine: use fewer wildcards, words or conditions');
    }
    throw e;
  }
}
