// The edges of webhook delivery (docs/webhooks.md): whose event it is, fairness between organisations,
// what an endpoint hears of the past, where requests may go, and what hostile receivers can do.
import type dns from 'node:dns';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { buildSchema } from '../../src/graphql/schema';
import { createSearchBackend } from '../../src/search/factory';
import { createGeocoder } from '../../src/geo/factory';
import { initOrm } from '../../src/db/orm';
import type { Config } from '../../src/config';
import { createWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from '../../src/modules/webhooks/webhook.worker';
import { REPLAY_WINDOW_SECONDS, verifySignature } from '../../src/modules/webhooks/webhook.signature';
import { startHostile, startReceiver, until } from './receiver';

const schema = buildSchema();
const SETTINGS = { GEOCODER: 'none', WEBHOOK_SECRET_KEY: 'k'.repeat(40), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
/** The service as it runs: the worker started by the app under its leader lock, polling every 250 ms. */
const LIVE = { ...SETTINGS, WEBHOOK_WORKER: 'true', WEBHOOK_POLL_MS: '250', WORKER_LOCK_RETRY_MS: '100' };

let t: TestApp;
let worker: WebhookWorker;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

function workerFor(orm: MikroORM, config: Config = t.config, options: WebhookWorkerOptions = {}): WebhookWorker {
  return createWebhookWorker(orm, { orm, config, search: createSearchBackend(config, orm), geocoder: createGeocoder(config) }, schema, options);
}
const strictConfig = (webhooks: Partial<Config['webhooks']> = {}): Config => ({ ...t.config, webhooks: { ...t.config.webhooks, allowPrivateUrls: false, ...webhooks } });

beforeAll(async () => {
  t = await createTestApp({ ...SETTINGS, WEBHOOK_WORKER: 'false' });
  worker = workerFor(t.orm);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  await worker.drain();
  receiver.received.length = 0;
  receiver.replies.length = 0;
});

const at = (path: string) => receiver.received.filter((r) => r.path === path);
const ALL = ['LeadCreated', 'LeadUpdated', 'LeadAssigned', 'LeadStatusChanged', 'LeadMerged', 'LeadActivityCreated'];

async function endpoint(app: TestApp, key: string, url: string, events = ALL) {
  const res = await gql(app, key, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id } } }`, {
    input: { url, events },
  });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createWebhookEndpoint as { secret: string; endpoint: { id: string } };
}

async function organisation(app: TestApp) {
  const net = await f.network(app.em());
  const admin = await f.userWithKey(app.em(), Role.CompanyAdmin, net.company);
  const dealer = await f.userWithKey(app.em(), Role.RetailerAdmin, net.retailer);
  return { net, admin: admin.key, dealer: dealer.key };
}

async function deliveriesOf(app: TestApp, endpointId: string) {
  return (app.em() as EntityManager).getConnection().execute(
    `select d.status, d.attempts, d.last_error, d.last_response_code, e.type, e.lead_id from webhook_deliveries d join lead_events e on e.id = d.event_id where d.endpoint_id = ? order by e.seq`,
    [endpointId],
  );
}

describe('the event names the lead owner', () => {
  test("a retailer's endpoint and a company's endpoint both see the lead's owner, as a GraphQL subscriber does", async () => {
    const { net, admin, dealer } = await organisation(t);
    await endpoint(t, admin, receiver.url('/owner-brand'));
    await endpoint(t, dealer, receiver.url('/owner-dealer'));
    const companyLead = await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
    const retailerLead = await createLead(t, dealer, quoteRequest({ assignee_id: net.storeNorth.id }));
    await worker.drain();
    const owners = (path: string) => new Map(at(path).map((r) => [r.json.lead.id, r.json.owner]));
    for (const path of ['/owner-brand', '/owner-dealer']) {
      expect(owners(path).get(companyLead.id)).toEqual({ type: 'Company', id: net.company.id });
      expect(owners(path).get(retailerLead.id)).toEqual({ type: 'Retailer', id: net.retailer.id });
    }
  });
});

describe('fairness', () => {
  test("an organisation with many hanging endpoints delays no one: another organisation's delivery and its own healthy endpoint's arrive within 2 s", async () => {
    const live = await createTestApp(LIVE);
    // Accepts every connection and request, and never answers (the worker gives up after WEBHOOK_TIMEOUT_MS, 10 s).
    const hanging = await startHostile(() => undefined);
    try {
      const a = await organisation(live);
      const b = await organisation(live);
      for (let i = 0; i < 8; i++) await endpoint(live, a.admin, hanging.url(`/a${i}`));
      await endpoint(live, a.admin, receiver.url('/a-healthy'), ['LeadStatusChanged']);
      await endpoint(live, b.admin, receiver.url('/b'), ['LeadCreated']);
      const leads = [];
      for (let i = 0; i < 6; i++) leads.push(await createLead(live, a.admin));
      // Every hanging endpoint holds requests now, and more are queued behind them.
      await until(() => new Set(hanging.arrived.map((r) => r.path)).size === 8, 'a request at each hanging endpoint');

      let started = Date.now();
      const theirs = await createLead(live, b.admin);
      await until(() => at('/b').some((r) => r.json.lead?.id === theirs.id), "the other organisation's delivery");
      expect(Date.now() - started).toBeLessThan(2000);

      started = Date.now();
      await api(live, 'patch', `/v1/leads/${leads[0].id}`, { key: a.admin, body: { lead: { status: 'Won' } } });
      await until(() => at('/a-healthy').length > 0, "the organisation's own healthy endpoint");
      expect(Date.now() - started).toBeLessThan(2000);
      // A hanging endpoint has at most its own few requests open.
      const open = new Map<string, number>();
      for (const r of hanging.arrived) open.set(r.path, (open.get(r.path) ?? 0) + 1);
      expect(Math.max(...open.values())).toBeLessThanOrEqual(4);
    } finally {
      await hanging.close();
      await live.close();
    }
  });
});

describe('what an endpoint hears', () => {
  test('only what happened after it was created, promptly, however large the backlog being dispatched', async () => {
    const live = await createTestApp(LIVE);
    try {
      const a = await organisation(live);
      const c = await organisation(live);
      const old = await createLead(live, a.admin);
      // Another organisation's bulk import that its endpoint does hear (each event's lead to serialize).
      await endpoint(live, c.admin, receiver.url('/bulk'), ['LeadUpdated']);
      const imported = await createLead(live, c.admin);
      const db = live.em().getConnection();
      // A backlog from before the endpoint (as the first start's demo seed, an import or an outage leave it).
      await db.execute(
        `insert into lead_events (type, lead_id, owner_company_id, occurred_at) select 'lead.updated', ?, ?, now() - interval '1 minute' from generate_series(1, 3000);
         insert into lead_events (type, lead_id, owner_company_id) select 'lead.updated', ?, ? from generate_series(1, 600);`,
        [old.id, a.net.company.id, imported.id, c.net.company.id],
      );
      await endpoint(live, a.admin, receiver.url('/fresh'));
      const started = Date.now();
      const mine = await createLead(live, a.admin);
      await until(() => at('/fresh').some((r) => r.json.type === 'lead.created'), 'the new lead at the new endpoint');
      expect(Date.now() - started).toBeLessThan(2000);
      await until(async () => (await db.execute(`select count(*)::int as n from lead_events where dispatched_at is null`))[0].n === 0, 'the backlog dispatched', 120_000);
      await until(() => at('/bulk').length >= 600, 'the bulk import delivered', 120_000);
      expect(new Set(at('/fresh').map((r) => r.json.lead.id))).toEqual(new Set([mine.id]));
      expect(at('/fresh').map((r) => r.json.type).sort()).toEqual(['lead.created', 'lead_activity.created']);
    } finally {
      await live.close();
    }
  });
});

describe('where requests may go (WEBHOOK_ALLOW_PRIVATE_URLS unset)', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ GEOCODER: 'none', WEBHOOK_WORKER: 'false' });
  });
  afterAll(() => strict.close());

  const EMBEDDING_PRIVATE = [
    'http://[::7f00:1]/', // IPv4-compatible ::/96: 127.0.0.1
    'http://[::a00:1]/', // 10.0.0.1
    'http://[::ffff:127.0.0.1]/', // IPv4-mapped
    'http://[::ffff:a9fe:a9fe]/', // 169.254.169.254
    'http://[::ffff:0:7f00:1]/', // IPv4-translated
    'http://[64:ff9b::7f00:1]/', // NAT64
    'http://[64:ff9b:1::a00:1]/', // local-use NAT64
    'http://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
    'http://[2002:c0a8:101::1]/', // 6to4 of 192.168.1.1
    'http://[2001:0:a9fe:a9fe::f7f7:f7f7]/', // Teredo via a link-local server
    'http://[2001:0:808:808::80ff:fffe]/', // Teredo to a loopback client
  ];

  test('every IPv6 spelling embedding a non-public IPv4 address is refused on create; one embedding a public address is accepted', async () => {
    const { admin } = await organisation(strict);
    const create = (url: string) =>
      gql(strict, admin, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id url } } }`, {
        input: { url, events: ['LeadCreated'] },
      });
    for (const url of EMBEDDING_PRIVATE) {
      const res = await create(url);
      expect([url, res.body.errors?.[0]?.extensions?.code, res.body.errors?.[0]?.extensions?.details?.[0]?.field]).toEqual([url, 'BAD_USER_INPUT', 'url']);
    }
    for (const url of ['http://[2002:808:808::1]/', 'http://[64:ff9b::808:808]/', 'http://[2001:0:808:808::f7f7:f7f7]/', 'http://[2606:4700::1111]/']) {
      const res = await create(url);
      expect([url, res.body.errors]).toEqual([url, undefined]);
    }
  });

  /** A resolver standing in for DNS: answers `answers` in turn (the last one from then on) and counts its calls. */
  function resolver(...answers: string[][]) {
    const calls: string[] = [];
    const lookup = (hostname: string, _options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => {
      calls.push(hostname);
      const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
      setImmediate(() => callback(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
    };
    return { lookup, calls };
  }

  test('at connect time: a name resolving to an address that embeds a private one gets no request, nor does a stored literal one', async () => {
    const { admin } = await organisation(t);
    const named = await endpoint(t, admin, receiver.url('/named'), ['LeadCreated']);
    const literal = await endpoint(t, admin, receiver.url('/literal'), ['LeadCreated']);
    const port = new URL(receiver.url()).port;
    const db = t.em().getConnection();
    // Stored while allowed: delivery checks again.
    await db.execute(`update webhook_endpoints set url = ? where id = ?`, [`http://hooks.example.com:${port}/named`, named.endpoint.id]);
    await db.execute(`update webhook_endpoints set url = ? where id = ?`, [`http://[::ffff:7f00:1]:${port}/literal`, literal.endpoint.id]);
    for (const answer of [['::7f00:1'], ['64:ff9b::7f00:1'], ['2002:7f00:1::1'], ['3ffe:ffff::1', '::ffff:127.0.0.1']]) {
      const dns = resolver(answer);
      await createLead(t, admin);
      await workerFor(t.orm, strictConfig(), { lookup: dns.lookup }).drain(1);
      const [last] = (await deliveriesOf(t, named.endpoint.id)).slice(-1);
      expect([answer, last.status, last.last_error]).toEqual([answer, 'pending', expect.stringMatching(/^refused: hooks.example.com resolves to a non-public address/)]);
      expect(dns.calls).toEqual(['hooks.example.com']);
    }
    expect(at('/named')).toEqual([]);
    expect(at('/literal')).toEqual([]);
    expect((await deliveriesOf(t, literal.endpoint.id)).every((d: any) => /^refused: .* is not a public address/.test(d.last_error))).toBe(true);
  });

  test('DNS that changes between check and connect: the request goes to the address that was checked, resolved once', async () => {
    const { admin } = await organisation(t);
    const ep = await endpoint(t, admin, receiver.url('/rebind'), ['LeadCreated']);
    const port = new URL(receiver.url()).port;
    await t.em().getConnection().execute(`update webhook_endpoints set url = ? where id = ?`, [`http://rebind.example.com:${port}/rebind`, ep.endpoint.id]);
    // Public when checked (an unannounced global address: no request leaves), this machine at any later lookup.
    const dns = resolver(['3ffe:ffff::1'], ['127.0.0.1']);
    await createLead(t, admin);
    await workerFor(t.orm, strictConfig({ timeoutMs: 300 }), { lookup: dns.lookup }).drain(1);
    expect(at('/rebind')).toEqual([]);
    expect(dns.calls).toEqual(['rebind.example.com']);
    const [d] = await deliveriesOf(t, ep.endpoint.id);
    expect(d.status).toBe('pending');
  });
});
