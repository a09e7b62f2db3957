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
