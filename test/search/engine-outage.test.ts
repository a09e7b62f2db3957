// The search engine down (docs/search-engines.md, "When the engine is down"): lists on an engine backend
// answer 503 with Retry-After in SPEC 7's generic envelope (REST) or a SERVICE_UNAVAILABLE error with a
// 503 (GraphQL), never a 500; the paths that read and write PostgreSQL alone (writes, shows) keep working.
// First with an engine that was never reachable (a dead port: the service starts anyway; runs without a
// live engine), then, on the live cluster (SEARCH_CLUSTER=1), an engine that goes away under a running
// service and comes back: lists answer again and include what was written meanwhile.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { quoteRequest, roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { searchEngineClient } from '../../src/search/factory';

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

function expectUnavailable(res: request.Response): void {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toEqual({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(/search engine.*retry later/) });
}

const LEADS_QUERY = `{ leads(q: "shopper") { meta { total } nodes { id } } }`;

/** The same checks for an engine that is down, whatever the reason. */
function whileDown(ctx: () => { t: TestApp; r: Awaited<ReturnType<typeof roles>> }) {
  test('REST lists answer 503 with Retry-After, filtered, searched or not', async () => {
    const { t, r } = ctx();
    const key = r.users.companyAdmin.key;
    for (const path of ['/v1/leads', '/v1/leads?q=shopper', '/v1/products', '/v1/company_retailer_locations?opts[aggs][]=territory_id']) {
      expectUnavailable(await api(t, 'get', path, { key }));
    }
    expectUnavailable(await api(t, 'get', `/v1/store_locator?cc_id=${r.net.company.id}&latitude=45.5&longitude=-122.6`));
  });

  test('a GraphQL list answers 503 with Retry-After and SERVICE_UNAVAILABLE', async () => {
    const { t, r } = ctx();
    const res = await gql(t, r.users.companyAdmin.key, LEADS_QUERY);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.errors[0]).toMatchObject({ message: expect.stringMatching(/search engine/), extensions: { code: 'SERVICE_UNAVAILABLE' } });
  });

  test('writes and shows (PostgreSQL only) keep working', async () => {
    const { t, r } = ctx();
    const key = r.users.companyAdmin.key;
    const created = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: 'Down Shopper' }) });
    expect(created.status).toBe(201);
    expect((await api(t, 'get', `/v1/leads/${created.body.id}`, { key })).body).toMatchObject({ name: 'Down Shopper' });
    const updated = await api(t, 'patch', `/v1/leads/${created.body.id}`, { key, body: { lead: { status: 'Contacted' } } });
    expect(updated.status).toBe(200);
    const product = await api(t, 'post', '/v1/products', { key, body: { product: { sku: `DOWN-${randomBytes(3).toString('hex')}`, name: 'Down anvil' } } });
    expect(product.status).toBe(201);
    expect((await api(t, 'delete', `/v1/products/${product.body.id}`, { key })).status).toBe(204);
    const mutation = await gql(t, key, `mutation($id: ID!) { updateLead(id: $id, input: { name: "Down Shopper 2" }) { id name } }`, { id: created.body.id });
    expect(mutation.body).toEqual({ data: { updateLead: { id: created.body.id, name: 'Down Shopper 2' } } });
  });
}

describe('an engine that cannot be reached from the start (a dead port)', () => {
  let t: TestApp;
  let r: Awaited<ReturnType<typeof roles>>;
  beforeAll(async () => {
    t = await createTestApp({ SEARCH_BACKEND: 'opensearch', SEARCH_URL: `http://127.0.0.1:${await deadPort()}` });
    r = await roles(t.em());
  });
  afterAll(() => t?.close());

  whileDown(() => ({ t, r }));
});

const engine = engineUnderTest();
(engine ? describe : describe.skip)('a live engine that goes away under a running service and comes back', () => {
  const prefix = `leadnet_outage_${randomBytes(4).toString('hex')}_`;
  let proxy: TcpProxy;
  let t: TestApp;
  let r: Awaited<ReturnType<typeof roles>>;
  let writtenWhileDown: string;

  beforeAll(async () => {
    proxy = await tcpProxy(engine!.url);
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: proxy.url, ELASTICSEARCH_INDEX_PREFIX: prefix });
    r = await roles(t.em());
  });
  afterAll(async () => {
    proxy?.restore();
    if (t) await searchEngineClient({ ...t.config, searchUrl: engine!.url }).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
    await proxy?.close();
  });

  test('up: a list answers', async () => {
    const res = await api(t, 'get', '/v1/leads', { key: r.users.companyAdmin.key });
    expect(res.status).toBe(200);
  });

  describe('down', () => {
    beforeAll(() => proxy.cut());
    whileDown(() => ({ t, r }));
    test('a lead written while it is down', async () => {
      const created = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ name: 'Outage Shopper' }) });
      expect(created.status).toBe(201);
      writtenWhileDown = created.body.id;
    });
  });

  test('back: lists answer again, and what was written meanwhile reaches the index', async () => {
    proxy.restore();
    const key = r.users.companyAdmin.key;
    // The failed outbox rows wait for their backoff (1 s, 2 s, 4 s...): poll, bounded.
    const deadline = Date.now() + 60_000;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      const res = await api(t, 'get', '/v1/leads?q=outage&opts[per_page]=100', { key });
      expect(res.status).toBe(200);
      ids = res.body.leads.map((l: { id: string }) => l.id);
      if (ids.includes(writtenWhileDown)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(ids).toContain(writtenWhileDown);
  }, 90_000);
});
