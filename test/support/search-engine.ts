import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { verify } from '../../src/search/elasticsearch/verify';

/**
 * The live search engine the engine suites run against, if any:
 * - `SEARCH_CLUSTER=1` (or `opensearch`, or `elasticsearch`): the project's cluster of that engine, started
 *   once for the run by the global setup (test/support/search-cluster.ts), which passes it on as
 *   LEADNET_TEST_SEARCH_URL and LEADNET_TEST_SEARCH_BACKEND;
 * - else `SEARCH_URL` (or `ELASTICSEARCH_URL`), an engine already running, of the kind `SEARCH_BACKEND`
 *   names (`elasticsearch` unless it says `opensearch`).
 * Without either the engine suites skip.
 */
export interface EngineUnderTest {
  backend: 'elasticsearch' | 'opensearch';
  url: string;
}

export function engineUnderTest(env: NodeJS.ProcessEnv = process.env): EngineUnderTest | undefined {
  if (env.LEADNET_TEST_SEARCH_URL) return { backend: env.LEADNET_TEST_SEARCH_BACKEND === 'elasticsearch' ? 'elasticsearch' : 'opensearch', url: env.LEADNET_TEST_SEARCH_URL };
  const url = env.SEARCH_URL || env.ELASTICSEARCH_URL;
  if (!url) return undefined;
  return { backend: env.SEARCH_BACKEND === 'opensearch' ? 'opensearch' : 'elasticsearch', url };
}

/**
 * Every document's index equals the database: the outbox is drained by `backend` (its backoffs brought
 * forward), then `verify` finds no drift in any document.
 */
export async function expectIndexInStep(backend: ElasticsearchSearchBackend, sql: (statement: string) => Promise<any[]>): Promise<void> {
  await sql('update search_outbox set available_at = now()');
  await backend.indexer.drain();
  const [{ left }] = await sql('select count(*)::int as left from search_outbox');
  expect(left).toBe(0);
  for (const doc of backend.documents) {
    const report = await verify(backend, doc);
    expect({ document: doc.name, ok: report.ok, missing: report.missing, extra: report.extra, stale: report.stale }).toEqual({
      document: doc.name,
      ok: true,
      missing: 0,
      extra: 0,
      stale: 0,
    });
  }
}
