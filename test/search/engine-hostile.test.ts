// A search engine that misbehaves instead of being down (docs/search-engines.md, "When the engine is
// down"): one that accepts a search and never answers, one behind a proxy that answers an HTML page, one
// that answers JSON of another shape, one that sheds load with 429, one that stops in the middle of its
// answer, one whose answer never ends (a byte at a time, or as fast as it is read). Through either client
// (Elastic's and OpenSearch's), each list answers 503 with Retry-After within the configured search
// timeout, never a 500, never a request left hanging and never an answer read past SEARCH_MAX_RESPONSE_MB;
// writes and shows (PostgreSQL only) keep working meanwhile; `leadnet search verify` ends with a clear error.
import path from 'node:path';
import { api, createTestApp, type TestApp } from '../support/app';
import { runLeadnet } from '../support/cli';
import { quoteRequest, roles } from '../support/leads';
import { serveFakeElasticsearch, type Misbehaviour } from '../support/fake-elasticsearch-server';
import { startService } from '../support/service-process';
import { createElasticsearchBackend } from '../../src/search/factory';
import { searchDocuments } from '../../src/modules';

const TIMEOUT_MS = 400;
let misbehaviour: Misbehaviour | undefined;
let lateCreates: Set<string> | undefined;
let es: Awaited<ReturnType<typeof serveFakeElasticsearch>>;
let t: TestApp;
let key: string;
/** The same database through OpenSearch's client. */
let o: TestApp;
let oKey: string;

beforeAll(async () => {
  es = await serveFakeElasticsearch(undefined, (req) => {
    // While `lateCreates` is on, each index create (PUT /<name>) is done but its first attempt is answered
    // after the client's timeout; the client's retry gets the engine's real answer.
    if (lateCreates && req.method === 'PUT' && /^\/[^/_][^/]*$/.test(req.path) && !lateCreates.has(req.path)) {
      lateCreates.add(req.path);
      return { lateMs: TIMEOUT_MS * 3 };
    }
    return req.path.endsWith('/_search') ? misbehaviour : undefined;
  });
  const env = { SEARCH_URL: es.url, SEARCH_TIMEOUT_MS: String(TIMEOUT_MS), SEARCH_MAX_RESPONSE_MB: '2', SEARCH_INDEXER: 'false' };
  t = await createTestApp({ SEARCH_BACKEND: 'elasticsearch', ...env });
  key = (await roles(t.em())).users.companyAdmin.key;
  o = await createTestApp({ SEARCH_BACKEND: 'opensearch', ...env });
  oKey = (await roles(o.em())).users.companyAdmin.key;
});

afterAll(async () => {
  await t?.close();
  await o?.close();
  await es?.close();
});

afterEach(() => {
  misbehaviour = undefined;
});

const cases: Array<[string, Misbehaviour]> = [
  ['accepts the search and never answers', 'hang'],
  ['answers a proxy’s HTML page with 200', { status: 200, body: '<html><body>Welcome to nginx</body></html>', contentType: 'text/html' }],
  ['answers JSON of another shape', { status: 200, body: '{"ok":true}' }],
  ['answers 200 with a body cut short', { status: 200, body: '{"hits":{"total":' }],
  ['sheds load with 429', { status: 429, body: '{"error":{"type":"es_rejected_execution_exception"},"status":429}' }],
  ['answers 200 and stops in the middle of its body', 'stall'],
  ['answers 200 with a body that never ends, a byte at a time', 'trickle'],
  ['answers 200 with a body that never ends', 'flood'],
];

/** The app of each client, and its company admin's key. */
const through = (client: string): [TestApp, string] => (client === 'opensearch' ? [o, oKey] : [t, key]);

describe.each(cases)('an engine that %s', (_name, bad) => {
  test.each(['elasticsearch', 'opensearch'])('through %s’s client: a list answers 503 with Retry-After within the search timeout, and the service keeps serving', async (client) => {
    const [app, admin] = through(client);
    misbehaviour = bad;
    const started = Date.now();
    const res = await api(app, 'get', '/v1/leads?q=shopper', { key: admin });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(/search engine.*retry later/) });
    // One attempt and one retry at most, each answer complete within about twice SEARCH_TIMEOUT_MS
    // (src/search/elasticsearch/bounded.ts), plus the request's own work.
    expect(Date.now() - started).toBeLessThan(2 * (2 * TIMEOUT_MS + 1000) + 3000);

    const created = await api(app, 'post', '/v1/leads', { key: admin, body: quoteRequest() });
    expect(created.status).toBe(201);
    expect((await api(app, 'get', `/v1/leads/${created.body.id}`, { key: admin })).status).toBe(200);
  });
});

test.each(['elasticsearch', 'opensearch'])(
  'through %s’s client, in a process with the production heap (192 MB) and the default bounds: 40 lists at once from an engine that floods every answer each answer 503, and the process lives on',
  async (client) => {
    // Each answer alone stays under SEARCH_MAX_RESPONSE_MB for a while; forty of them together would not
    // fit in the heap (`npm run start:prod` caps it at 192 MB) if the bound were not on their sum.
    misbehaviour = 'flood';
    const service = await startService({
      DATABASE_URL: t.config.databaseUrl!,
      NODE_OPTIONS: '--max-old-space-size=192',
      SEARCH_BACKEND: client,
      SEARCH_URL: es.url,
      ELASTICSEARCH_INDEX_PREFIX: t.config.elasticsearchIndexPrefix,
      SEARCH_INDEXER: 'false',
      RATE_LIMIT_API: '0',
      RATE_LIMIT_API_PER_IP: '0',
      // All forty read at once, as forty organisations' lists would be: one organisation's own share (8
      // at once, the rest queued for at most 10 s) would answer some 429 on a busy machine.
      ORGANISATION_CONCURRENCY: '40',
    });
    try {
      await service.waitFor((l) => /listening/.test(l.msg ?? ''), 120_000);
      const list = () => fetch(`${service.url}/v1/leads`, { headers: { 'x-api-key': key } });
      const answers = await Promise.all(Array.from({ length: 40 }, () => list().then((r) => [r.status, r.headers.get('retry-after')])));
      expect(answers).toEqual(Array(40).fill([503, '5']));
      expect(service.child.exitCode).toBeNull();
      misbehaviour = undefined;
      expect((await list()).status).toBe(200);
    } finally {
      await service.kill();
    }
  },
  120_000,
);

test('with the engine answering again, lists answer 200', async () => {
  expect((await api(t, 'get', '/v1/leads', { key })).status).toBe(200);
});

test('`leadnet search verify` against an engine that never answers ends with a clear error, not a hang', async () => {
  misbehaviour = 'hang';
  const started = Date.now();
  const out = await runLeadnet(
    ['search', 'verify', 'products'],
    { DATABASE_URL: t.config.databaseUrl, SEARCH_BACKEND: 'elasticsearch', SEARCH_URL: es.url, SEARCH_TIMEOUT_MS: String(TIMEOUT_MS) },
    { timeout: 60_000 },
  );
  expect(out.code).not.toBe(0);
  expect(out.stderr).toMatch(/^leadnet: the search engine gave no usable answer \(TimeoutError/);
  expect(out.stderr).not.toMatch(/^\s+at /m);
  expect(Date.now() - started).toBeLessThan(30_000);
});

test('an engine that creates an index but answers after the timeout: the retried create finds it, the start goes on', async () => {
  // The engine lost its indexes (a new cluster): the next start creates them, each create answered late.
  // OpenSearch's client retries a request that timed out (Elastic's does not), and the retry finds the
  // index the first attempt made.
  es.fake.indices.clear();
  es.fake.aliases.clear();
  const backend = createElasticsearchBackend({ ...t.config, searchBackend: 'opensearch' }, t.orm, { documents: searchDocuments, runIndexer: false });
  lateCreates = new Set();
  try {
    await backend.start();
  } finally {
    await backend.stop();
  }
  expect(lateCreates.size).toBe(searchDocuments.length);
  lateCreates = undefined;
  for (const doc of searchDocuments) expect(es.fake.aliased(backend.alias(doc))).toHaveLength(1);
  expect((await api(t, 'get', '/v1/leads', { key })).status).toBe(200);
});
