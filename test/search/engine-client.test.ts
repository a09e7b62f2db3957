// Choosing the search engine: configuration, which client package a process loads, and the requests the
// OpenSearch adapter sends (checked on a real local HTTP receiver standing in for OpenSearch; the engine
// suite, elasticsearch.test.ts, runs the whole conformance suite against a live cluster).
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../src/config';
import { searchEngineClient } from '../../src/search/factory';

describe('configuration', () => {
  test('SEARCH_BACKEND=opensearch with SEARCH_URL', () => {
    expect(parseConfig({ SEARCH_BACKEND: 'opensearch', SEARCH_URL: 'http://search.test:9200' })).toMatchObject({
      searchBackend: 'opensearch',
      searchUrl: 'http://search.test:9200',
    });
  });

  test('ELASTICSEARCH_URL is still accepted; SEARCH_URL wins over it', () => {
    expect(parseConfig({ SEARCH_BACKEND: 'elasticsearch', ELASTICSEARCH_URL: 'http://es.test:9200' }).searchUrl).toBe('http://es.test:9200');
    expect(parseConfig({ SEARCH_BACKEND: 'opensearch', ELASTICSEARCH_URL: 'http://es.test:9200' }).searchUrl).toBe('http://es.test:9200');
    expect(parseConfig({ SEARCH_URL: 'http://a.test:9200', ELASTICSEARCH_URL: 'http://b.test:9200' }).searchUrl).toBe('http://a.test:9200');
  });

  test.each(['elasticsearch', 'opensearch'])('SEARCH_BACKEND=%s without a URL stops the start, naming SEARCH_URL', (backend) => {
    expect(() => parseConfig({ SEARCH_BACKEND: backend })).toThrow(ConfigError);
    expect(() => parseConfig({ SEARCH_BACKEND: backend })).toThrow(/SEARCH_URL is required when SEARCH_BACKEND=/);
  });

  test('a bad SEARCH_URL stops the start, naming it', () => {
    expect(() => parseConfig({ SEARCH_BACKEND: 'opensearch', SEARCH_URL: 'not a url' })).toThrow(/SEARCH_URL/);
  });
});

describe('a process loads only the client of the engine it is configured for', () => {
  // A fresh process each time: jest's module registry is not the process's.
  const loaded = (env: Record<string, string>): string[] => {
    const script = `
      const { parseConfig } = require('./src/config');
      const { searchEngineClient } = require('./src/search/factory');
      require('./src/modules/store-locator/store-locator.factory');
      const config = parseConfig(${JSON.stringify(env)});
      if (config.searchBackend !== 'postgres') searchEngineClient(config);
      const packages = ['@elastic/elasticsearch', '@opensearch-project/opensearch'];
      console.log(JSON.stringify(packages.filter((p) => Object.keys(require.cache).some((f) => f.includes('/node_modules/' + p + '/')))));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.join(__dirname, '..', '..'), encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop()!);
  };

  test('postgres: neither', () => {
    expect(loaded({})).toEqual([]);
  });
  test('elasticsearch: the Elasticsearch client alone', () => {
    expect(loaded({ SEARCH_BACKEND: 'elasticsearch', SEARCH_URL: 'http://127.0.0.1:9' })).toEqual(['@elastic/elasticsearch']);
  });
  test('opensearch: the OpenSearch client alone', () => {
    expect(loaded({ SEARCH_BACKEND: 'opensearch', SEARCH_URL: 'http://127.0.0.1:9' })).toEqual(['@opensearch-project/opensearch']);
  });
});

describe('the OpenSearch adapter on the wire', () => {
  interface Seen {
    method: string;
    url: string;
    body: string;
  }
  let server: http.Server;
  let seen: Seen[];
  let reply: (req: Seen) => { status: number; body?: unknown; ndjson?: boolean };
  let client: ReturnType<typeof searchEngineClient>;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const r = { method: req.method!, url: req.url!, body };
        seen.push(r);
        const { status, body: out } = reply(r);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(out === undefined ? '' : JSON.stringify(out));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = searchEngineClient(parseConfig({ SEARCH_BACKEND: 'opensearch', SEARCH_URL: url }));
  });
  beforeEach(() => {
    seen = [];
    reply = () => ({ status: 200, body: { acknowledged: true } });
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('search: the request body under the index, the response body back', async () => {
    const hits = { total: { value: 1, relation: 'eq' }, hits: [{ _id: 'a', _index: 'p', _score: 1 }] };
    reply = () => ({ status: 200, body: { took: 1, timed_out: false, hits } });
    const response = await client.search({ index: 'leadnet_products', query: { match_all: {} }, from: 10, size: 5, sort: [{ leadnet_id: 'asc' }], track_total_hits: true });
    expect(response.hits).toEqual(hits);
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('POST');
    expect(seen[0].url).toBe('/leadnet_products/_search');
    expect(JSON.parse(seen[0].body)).toEqual({ query: { match_all: {} }, from: 10, size: 5, sort: [{ leadnet_id: 'asc' }], track_total_hits: true });
  });

  test('bulk: the operations as NDJSON, refresh as a parameter', async () => {
    reply = () => ({ status: 200, body: { took: 1, errors: false, items: [] } });
    const response = await client.bulk({ operations: [{ index: { _index: 'i', _id: '1' } }, { name: 'x' }, { delete: { _index: 'i', _id: '2' } }], refresh: false });
    expect(response).toEqual({ took: 1, errors: false, items: [] });
    expect(seen[0].url).toBe('/_bulk?refresh=false');
    expect(seen[0].body.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ index: { _index: 'i', _id: '1' } }, { name: 'x' }, { delete: { _index: 'i', _id: '2' } }]);
  });

  test('index administration: create, settings, aliases, refresh, delete', async () => {
    await client.indices.create({ index: 'i1', settings: { number_of_shards: 1 }, mappings: { dynamic: 'strict', properties: {} } });
    await client.indices.putSettings({ index: 'i1', settings: { refresh_interval: '-1' } });
    await client.indices.updateAliases({ actions: [{ add: { index: 'i1', alias: 'a' } }] });
    await client.indices.refresh({ index: ['a', 'b'], ignore_unavailable: true, allow_no_indices: true });
    await client.indices.delete({ index: 'i0', ignore_unavailable: true });
    expect(seen.map((r) => [r.method, r.url, r.body ? JSON.parse(r.body) : null])).toEqual([
      ['PUT', '/i1', { settings: { number_of_shards: 1 }, mappings: { dynamic: 'strict', properties: {} } }],
      ['PUT', '/i1/_settings', { refresh_interval: '-1' }],
      ['POST', '/_aliases', { actions: [{ add: { index: 'i1', alias: 'a' } }] }],
      ['GET', '/a%2Cb/_refresh?ignore_unavailable=true&allow_no_indices=true', null],
      ['DELETE', '/i0?ignore_unavailable=true', null],
    ]);
  });

  test('exists and existsAlias are booleans; getAlias is the body', async () => {
    reply = (r) => (r.url.includes('missing') ? { status: 404 } : { status: 200, body: r.method === 'GET' ? { i1: { aliases: { a: {} } } } : undefined });
    expect(await client.indices.exists({ index: 'i1' })).toBe(true);
    expect(await client.indices.exists({ index: 'missing' })).toBe(false);
    expect(await client.indices.existsAlias({ name: 'a' })).toBe(true);
    expect(await client.indices.existsAlias({ name: 'missing' })).toBe(false);
    expect(await client.indices.getAlias({ name: 'a' })).toEqual({ i1: { aliases: { a: {} } } });
    expect(seen.map((r) => [r.method, r.url])).toEqual([
      ['HEAD', '/i1'],
      ['HEAD', '/missing'],
      ['HEAD', '/_alias/a'],
      ['HEAD', '/_alias/missing'],
      ['GET', '/_alias/a'],
    ]);
  });

  test('flush, and the health of an index: green, or a 408 once the wait ran out', async () => {
    await client.indices.flush({ index: 'i1' });
    reply = () => ({ status: 200, body: { status: 'green', timed_out: false } });
    expect(await client.cluster.health({ index: 'i1', wait_for_status: 'green', timeout: '5000ms' })).toMatchObject({ status: 'green', timed_out: false });
    expect(seen.map((r) => [r.method, r.url])).toEqual([
      ['GET', '/i1/_flush'],
      ['GET', '/_cluster/health/i1?wait_for_status=green&timeout=5000ms'],
    ]);
    // What the reindex's wait for green reads from the error (src/search/elasticsearch/reindex.ts).
    reply = () => ({ status: 408, body: { status: 'yellow', timed_out: true } });
    await expect(client.cluster.health({ index: 'i1', wait_for_status: 'green', timeout: '100ms' })).rejects.toMatchObject({ meta: { statusCode: 408, body: { status: 'yellow' } } });
  });

  test('an engine error is thrown, not returned as a body', async () => {
    reply = () => ({ status: 400, body: { error: { type: 'search_phase_execution_exception', reason: 'bad' }, status: 400 } });
    await expect(client.search({ index: 'i', query: { match_all: {} } })).rejects.toThrow(/search_phase_execution_exception/);
  });
});
