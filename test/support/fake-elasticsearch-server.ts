import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors } from '@elastic/elasticsearch';
import { FakeElasticsearch } from './fake-elasticsearch';
import { endlessBody } from './endless-body';

/**
 * What a hostile or broken engine does with one request instead of answering it: `'hang'` accepts it and
 * never answers; `'stall'` sends a 200's headers and the start of a body, then nothing more; `'trickle'`
 * sends a 200 whose body never ends, one byte every 100 ms; `'flood'` sends a 200 whose chunked body never
 * ends, as fast as the client reads; a raw answer is sent as it is
 * (any status, content type and body); `lateMs` does what was asked but answers that much later (after the
 * client gave up, for a timeout shorter than it).
 */
export type Misbehaviour =
  | 'hang'
  | 'stall'
  | 'trickle'
  | 'flood'
  | { lateMs: number }
  | { status: number; body: string; contentType?: string; headers?: Record<string, string> };

const HEADERS = { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' };


/**
 * The in-memory Elasticsearch stand-in (test/support/fake-elasticsearch.ts) behind a real HTTP server
 * on 127.0.0.1, for service processes started as children (they reach it through ELASTICSEARCH_URL).
 * Requests are parsed as @elastic/elasticsearch-mock parses them and answered by the same handlers,
 * unless `intercept` returns a misbehaviour for the request.
 */
export async function serveFakeElasticsearch(
  fake = new FakeElasticsearch(),
  intercept: (req: { method: string; path: string }) => Misbehaviour | undefined = () => undefined,
): Promise<{ fake: FakeElasticsearch; url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const bad = intercept({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'http://localhost').pathname });
    if (bad === 'hang') return;
    if (bad === 'stall') {
      res.writeHead(200, HEADERS);
      return void res.write('{"took":1,"hits":{"total":');
    }
    if (bad === 'flood') return endlessBody(res, '{"hits":{"hits":[],"total":{"value":0}},"x":"', HEADERS);
    if (bad === 'trickle') {
      res.writeHead(200, HEADERS);
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 100);
      return void res.on('close', () => clearInterval(drip));
    }
    if (bad && 'status' in bad) {
      res.writeHead(bad.status, { ...HEADERS, 'content-type': bad.contentType ?? HEADERS['content-type'], ...bad.headers });
      return void res.end(bad.body);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      const ndjson = (req.headers['content-type'] ?? '').includes('ndjson');
      const body = !text ? null : ndjson ? text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) : JSON.parse(text);
      const params = { method: req.method ?? 'GET', path: decodeURIComponent(url.pathname), body, querystring: Object.fromEntries(url.searchParams) };
      const resolver = fake.mock.get(params) as ((p: typeof params) => unknown) | null;
      let status = 200;
      let payload: unknown = resolver ? resolver(params) : { error: 'Mock not found' };
      if (!resolver) status = 404;
      if (payload instanceof errors.ResponseError) {
        status = payload.statusCode ?? 500;
        payload = payload.body;
      }
      const out = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const answer = () => {
        res.writeHead(status, HEADERS);
        res.end(req.method === 'HEAD' ? undefined : out);
      };
      if (bad) setTimeout(answer, bad.lateMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    fake,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
