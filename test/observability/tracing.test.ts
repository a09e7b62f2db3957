import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { quoteRequest, roles } from '../support/leads';
import { startReceiver } from '../webhooks/receiver';
import { createTestDatabase } from '../support/database';
import { startChild, stopChildren, type ChildService } from '../support/service';
import { initAppOrm } from '../../mikro-orm.config';

/**
 * OpenTelemetry traces (docs/tracing.md) of the real service, received by a real local OTLP/HTTP receiver: one partner
 * request's tree (its `traceparent` followed, HTTP, GraphQL operation, SQL statements), the webhook
 * delivery of the event it wrote in the same trace and carrying it on, sampling, no personal data in
 * spans, and nothing at all when tracing is off. The production start exports protobuf and flushes on
 * SIGTERM.
 */
jest.setTimeout(120_000);

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code?: number };
}

/** A local OTLP/HTTP receiver: keeps every export's raw body, and the spans of JSON ones. */
async function startOtlpReceiver() {
  const exports: Array<{ path: string; type: string; body: Buffer }> = [];
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = String(req.headers['content-type'] ?? '');
      exports.push({ path: req.url ?? '', type, body });
      if (type.startsWith('application/json')) {
        for (const rs of JSON.parse(body.toString('utf8')).resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes = Object.fromEntries((s.attributes ?? []).map((a: any) => [a.key, Object.values(a.value)[0]]));
              spans.push({ ...s, attributes, links: s.links ?? [], status: s.status ?? {} });
            }
          }
        }
      }
      res.writeHead(200, { 'Content-Type': type.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
      res.end(type.startsWith('application/json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    exports,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits until `check` passes (spans arrive in batches). */
async function eventually<T>(check: () => T, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return check();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const PARTNER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARTNER_SPAN = '00f067aa0ba902b7';
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

describe('a traced service (OTLP/HTTP JSON)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let sql: Client;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let service: ChildService;
  let url: string;
  let key: string;
  const env = (extra: Record<string, string>) => ({
    DATABASE_URL: db.url,
    LOG_FORMAT: 'json',
    GEOCODER: 'none',
    WEBHOOK_SECRET_KEY: 'k'.repeat(40),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_MS: '50',
    RATE_LIMIT_API: '0',
    RATE_LIMIT_API_PER_IP: '0',
    ...extra,
  });
  const call = (method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    const orm = await initAppOrm(db.url);
    key = (await roles(orm.em.fork() as EntityManager)).users.companyAdmin.key;
    await orm.close();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    service = startChild(env({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' }));
    url = await service.ready();
    const hook = await call('POST', '/graphql', {
      body: {
        query: 'mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }',
        variables: { input: { url: receiver.url('/traced'), events: ['LeadCreated'], description: 'traced' } },
      },
    });
    expect(((await hook.json()) as any).errors).toBeUndefined();
  });
  afterAll(async () => {
    await stopChildren();
    await sql?.end();
    await receiver?.close();
    await otlp?.close();
    await db?.drop();
  });

  test("a partner's create is one trace: HTTP, the GraphQL operation, its SQL; the webhook of its event joins the trace and sends it on", async () => {
    const email = `traced.person.${Date.now()}@example.com`;
    const res = await call('POST', '/v1/leads', {
      body: { lead: quoteRequest({ name: 'Traced Person', emails: [{ email }] }).lead },
      headers: { traceparent: `00-${PARTNER_TRACE}-${PARTNER_SPAN}-01` },
    });
    expect(res.status).toBe(201);
    const leadId = ((await res.json()) as { id: string }).id;

    const server = await eventually(() => {
      const s = otlp.spans.find((x) => x.kind === SERVER && x.name === 'POST /v1/leads' && x.traceId === PARTNER_TRACE);
      expect(s).toBeDefined();
      return s!;
    });
    expect(server.parentSpanId).toBe(PARTNER_SPAN);
    expect(server.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v1/leads', 'http.response.status_code': 201, 'url.path': '/v1/leads' });
    expect(server.attributes['leadnet.request_id']).toBe(res.headers.get('x-request-id'));

    const operation = await eventually(() => {
      const s = otlp.spans.find((x) => x.parentSpanId === server.spanId && x.attributes['graphql.operation.type'] === 'mutation');
      expect(s).toBeDefined();
      return s!;
    });
    expect(operation.name).toBe(`mutation ${operation.attributes['graphql.operation.name']}`);
    const statements = await eventually(() => {
      const s = otlp.spans.filter((x) => x.traceId === PARTNER_TRACE && x.kind === CLIENT && x.attributes['db.system.name'] === 'postgresql');
      expect(s.map((x) => x.name)).toEqual(expect.arrayContaining(['BEGIN', 'COMMIT']));
      expect(s.some((x) => /\binsert into "?leads"?/i.test(String(x.attributes['db.query.text'])))).toBe(true);
      return s;
    });
    // Every statement hangs under the operation (directly or through another of its spans).
    const byId = new Map(otlp.spans.map((x) => [x.spanId, x]));
    const ancestors = (s: Span): string[] => (s.parentSpanId && byId.has(s.parentSpanId) ? [s.parentSpanId, ...ancestors(byId.get(s.parentSpanId)!)] : []);
    for (const s of statements) expect(ancestors(s)).toContain(operation.spanId);
    // The transaction told PostgreSQL the trace (its literals masked in the span); the event kept it.
    expect(statements.some((s) => s.attributes['db.query.text'] === 'select set_config(?, ?, true)')).toBe(true);
    const { rows } = await sql.query(`select traceparent from lead_events where lead_id = $1 and type = 'lead.created'`, [leadId]);
    expect(rows[0].traceparent).toMatch(new RegExp(`^00-${PARTNER_TRACE}-[0-9a-f]{16}-01$`));

    // The webhook: a delivery span of the partner's trace, its POST a child, whose id the receiver gets.
    const delivered = await eventually(() => {
      const d = receiver.received.find((x) => x.path === '/traced' && x.json?.lead?.id === leadId);
      expect(d).toBeDefined();
      return d!;
    });
    const header = String(delivered.headers.traceparent);
    expect(header).toMatch(new RegExp(`^00-${PARTNER_TRACE}-[0-9a-f]{16}-01$`));
    const deliver = await eventually(() => {
      const s = otlp.spans.find((x) => x.name === 'webhook deliver' && x.traceId === PARTNER_TRACE);
      expect(s).toBeDefined();
      return s!;
    });
    expect(deliver.kind).toBe(CONSUMER);
    expect(deliver.attributes).toMatchObject({ 'messaging.destination.name': 'webhook', 'leadnet.delivery.attempt': 1 });
    const post = await eventually(() => {
      const s = otlp.spans.find((x) => x.parentSpanId === deliver.spanId && x.name === 'POST');
      expect(s).toBeDefined();
      return s!;
    });
    expect(post).toMatchObject({ kind: CLIENT, attributes: { 'server.address': '127.0.0.1', 'http.response.status_code': 200 } });
    expect(header.split('-')[2]).toBe(post.spanId);

    // No value the partner sent is in any span: statements keep their text with literals masked.
    const everything = JSON.stringify(otlp.spans);
    expect(everything).not.toContain(email);
    expect(everything).not.toContain('Traced Person');
    expect(everything).not.toContain(key);
    // And every log line of the request names its trace.
    const lines = service.stdout().split('\n').filter((l) => l.includes(PARTNER_TRACE));
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('request');
  });

  test('GraphQL: the operation span is named by the operation, its statements are its children', async () => {
    const res = await call('POST', '/graphql', { body: { query: 'query TracedList { leads(perPage: 5) { nodes { id } } }' } });
    expect(((await res.json()) as any).errors).toBeUndefined();
    const operation = await eventually(() => {
      const s = otlp.spans.find((x) => x.name === 'query TracedList');
      expect(s).toBeDefined();
      return s!;
    });
    expect(otlp.spans.find((x) => x.spanId === operation.parentSpanId)).toMatchObject({ kind: SERVER, name: 'POST /graphql' });
    await eventually(() => expect(otlp.spans.some((x) => x.parentSpanId === operation.spanId && x.name === 'SELECT')).toBe(true));
  });

  test("concurrent creates written in one group: the group's span is in the first request's trace and links to the others'", async () => {
    const traces = Array.from({ length: 6 }, (_, i) => `${'ab'.repeat(15)}${String(i).padStart(2, '0')}`);
    const answers = await Promise.all(
      traces.map((trace) => call('POST', '/v1/leads', { body: quoteRequest(), headers: { traceparent: `00-${trace}-${PARTNER_SPAN}-01` } })),
    );
    expect(answers.map((a) => a.status)).toEqual(traces.map(() => 201));
    await eventually(() => expect(traces.every((trace) => otlp.spans.some((x) => x.traceId === trace && x.kind === SERVER))).toBe(true));
    // The first runs alone; the others, arriving while it is written, are written together.
    const groups = await eventually(() => {
      const g = otlp.spans.filter((x) => x.name === 'CreateLeads group' && traces.includes(x.traceId));
      expect(g.length).toBeGreaterThan(0);
      return g;
    });
    for (const group of groups) {
      expect(group.attributes['leadnet.group.size']).toBe(group.links.length + 1);
      for (const link of group.links) expect(traces).toContain(link.traceId);
    }
  });

  test('an idempotent write and its replay: the write has its operation, the replay answers from the stored answer without one', async () => {
    const body = quoteRequest();
    const headers = (trace: string) => ({ 'idempotency-key': `traced-${Date.now()}`, traceparent: `00-${trace}-${PARTNER_SPAN}-01` });
    const first = 'f1'.repeat(16);
    const again = 'f2'.repeat(16);
    const h = headers(first);
    expect((await call('POST', '/v1/leads', { body, headers: h })).status).toBe(201);
    const replay = await call('POST', '/v1/leads', { body, headers: { ...h, traceparent: `00-${again}-${PARTNER_SPAN}-01` } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const spans = await eventually(() => {
      const s = { first: otlp.spans.filter((x) => x.traceId === first), again: otlp.spans.filter((x) => x.traceId === again) };
      expect(s.first.some((x) => x.kind === SERVER)).toBe(true);
      expect(s.again.some((x) => x.kind === SERVER)).toBe(true);
      return s;
    });
    expect(spans.first.some((x) => x.attributes['graphql.operation.type'] === 'mutation')).toBe(true);
    expect(spans.again.some((x) => x.attributes['graphql.operation.type'] !== undefined)).toBe(false);
    expect(spans.again.some((x) => x.attributes['db.system.name'] === 'postgresql')).toBe(true);
  });

  test("a partner's unsampled traceparent is followed: no span is exported and its events keep no trace", async () => {
    const trace = 'aaaabbbbccccddddeeeeffff00001111';
    const res = await call('POST', '/v1/leads', { body: quoteRequest(), headers: { traceparent: `00-${trace}-${PARTNER_SPAN}-00` } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    // A request after it is exported: the unsampled one would have been too.
    await call('GET', '/v1/leads', { headers: { traceparent: `00-${'1'.repeat(32)}-${PARTNER_SPAN}-01` } });
    await eventually(() => expect(otlp.spans.some((x) => x.traceId === '1'.repeat(32))).toBe(true));
    expect(otlp.spans.filter((x) => x.traceId === trace)).toEqual([]);
    const { rows } = await sql.query('select traceparent from lead_events where lead_id = $1', [id]);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((row) => row.traceparent)).toEqual(rows.map(() => null));
  });

  test('a malformed traceparent is ignored: the request starts a trace of its own', async () => {
    const bad = ['00-zzzz-00f067aa0ba902b7-01', `ff-${PARTNER_TRACE}-${PARTNER_SPAN}-01`, `00-${'0'.repeat(32)}-${PARTNER_SPAN}-01`, 'x'.repeat(8_000)];
    for (const traceparent of bad) expect((await call('GET', '/healthz', { headers: { traceparent } })).status).toBe(200);
    const spans = await eventually(() => {
      const s = otlp.spans.filter((x) => x.name === 'GET /healthz');
      expect(s.length).toBeGreaterThanOrEqual(bad.length);
      return s;
    });
    for (const s of spans) {
      expect(s.parentSpanId ?? '').toBe('');
      expect(s.traceId).not.toBe(PARTNER_TRACE);
    }
  });

  test('tracing off (no OTEL_* variable): no export, no traceparent on webhooks, events keep none', async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    const before = otlp.exports.length;
    service = startChild(env({}));
    url = await service.ready();
    const res = await call('POST', '/v1/leads', { body: quoteRequest(), headers: { traceparent: `00-${'2'.repeat(32)}-${PARTNER_SPAN}-01` } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const delivered = await eventually(() => {
      const d = receiver.received.find((x) => x.json?.lead?.id === id);
      expect(d).toBeDefined();
      return d!;
    });
    expect(delivered.headers.traceparent).toBeUndefined();
    const { rows } = await sql.query('select traceparent from lead_events where lead_id = $1', [id]);
    expect(rows.map((row) => row.traceparent)).toEqual(rows.map(() => null));
    expect(service.stdout()).not.toContain('traceId');
    expect(otlp.exports.length).toBe(before);
  });
});

describe('the service process', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  beforeAll(async () => {
    db = await createTestDatabase();
    otlp = await startOtlpReceiver();
  });
  afterAll(async () => {
    await stopChildren();
    await otlp.close();
    await db.drop();
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT alone: protobuf to /v1/traces, the service named, log lines carry the trace; SIGTERM exports what waits', async () => {
    // A long batch delay: only the shutdown's flush can deliver the span in time.
    const service = startChild({ DATABASE_URL: db.url, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '600000', LOG_FORMAT: 'json' });
    const url = await service.ready();
    const trace = 'cafe'.repeat(8);
    const res = await fetch(`${url}/healthz`, { headers: { traceparent: `00-${trace}-${PARTNER_SPAN}-01` } });
    expect(res.status).toBe(200);
    const line = await service.waitFor(new RegExp(`^(\\{.*"traceId":"${trace}".*\\})$`, 'm'));
    expect(JSON.parse(line[1])).toMatchObject({ msg: 'request', route: '/healthz' });
    expect(otlp.exports).toEqual([]);
    service.child.kill('SIGTERM');
    expect(await service.exited).toMatchObject({ code: 0 });
    expect(otlp.exports.map((e) => [e.path, e.type])).toEqual([['/v1/traces', 'application/x-protobuf']]);
    const body = otlp.exports[0].body;
    expect(body.includes(Buffer.from(trace, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from(PARTNER_SPAN, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from('GET /healthz'))).toBe(true);
    expect(body.includes(Buffer.from('leadnet'))).toBe(true);
  });

  test('an unsupported protocol or exporter stops the start with a clear message', async () => {
    for (const [name, value] of [
      ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
      ['OTEL_TRACES_EXPORTER', 'zipkin'],
    ]) {
      const service = startChild({ DATABASE_URL: db.url, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, [name]: value });
      const exit = await service.exited;
      expect(exit.code).not.toBe(0);
      expect(service.output()).toContain(name);
    }
  });
});
