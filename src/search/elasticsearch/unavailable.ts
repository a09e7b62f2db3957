import { searchUnavailable } from '../../errors';
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

/** Runs an engine read; an unavailable engine becomes `searchUnavailable()` (503), anything else is thrown as it is. */
export async function engineRead<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isEngineUnavailable(e)) throw searchUnavailable();
    throw e;
  }
}
