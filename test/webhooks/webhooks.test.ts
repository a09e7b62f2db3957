import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { buildSchema } from '../../src/graphql/schema';
import { createSearchBackend } from '../../src/search/factory';
import { createGeocoder } from '../../src/geo/factory';
import { initAppOrm } from '../../mikro-orm.config';
import { createWebhookWorker, WEBHOOK_LOCK, type WebhookWorker } from '../../src/modules/webhooks/webhook.worker';
import { verifySignature } from '../../src/modules/webhooks/webhook.signature';
import { startReceiver } from './receiver';
import { modules } from '../../src/modules';

let t: TestApp;
let worker: WebhookWorker;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const schema = buildSchema(modules);

function workerFor(orm: MikroORM, config = t.config): WebhookWorker {
  return createWebhookWorker(orm, { orm, config, search: createSearchBackend(config, orm), geocoder: createGeocoder(config, orm) }, schema);
}

beforeAll(async () => {
  // The receiver listens on 127.0.0.1: private addresses are allowed here (see 'webhooks: safety').
  t = await createTestApp({ WEBHOOK_WORKER: 'false', GEOCODER: 'none', WEBHOOK_SECRET_KEY: 'k'.repeat(40), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  worker = workerFor(t.orm);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(async () => {
  // Earlier tests' events are not this test's business.
  await worker.drain();
  receiver.received.length = 0;
  receiver.replies.length = 0;
});

const em = (): EntityManager => t.em();
const ENDPOINT = 'id ownerType ownerId url description events enabled disabledReason failingSince';

async function endpoint(key: string, events = ['LeadCreated', 'LeadUpdated', 'LeadAssigned', 'LeadStatusChanged', 'LeadMerged', 'LeadActivityCreated'], path = '/hook') {
  const res = await gql(t, key, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { ${ENDPOINT} } } }`, {
    input: { url: receiver.url(path), events, description: 'test' },
  });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createWebhookEndpoint as { secret: string; endpoint: { id: string } };
}

async function network() {
  const net = await f.network(em());
  const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  return { net, admin: admin.key };
}

const at = (path: string) => receiver.received.filter((r) => r.path === path);

async function deliveries(key: string, endpointId: string) {
  const res = await gql(t, key, `query($id: ID!) { webhookDeliveries(endpointId: $id) { id eventId eventType leadId status attempts lastResponseCode lastError createdAt updatedAt nextAttemptAt
    attemptLog { attempt succeeded responseCode durationMs error createdAt } } }`, { id: endpointId });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.webhookDeliveries as any[];
}

describe('webhooks: delivery', () => {
  test('a lead create reaches the endpoint, signed, with an event id and the lead as REST shows it', async () => {
    const { net, admin } = await network();
    const { secret, endpoint: ep } = await endpoint(admin, undefined, '/created');
    const lead = await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
    await worker.drain();
    const got = at('/created');
    expect(got.map((r) => r.json.type).sort()).toEqual(['lead.assigned', 'lead.created', 'lead_activity.created']);
    const created = got.find((r) => r.json.type === 'lead.created')!;
    expect(created.headers['leadnet-event-id']).toBe(created.json.id);
    expect(created.headers['content-type']).toBe('application/json');
    expect(verifySignature(secret, created.body, created.headers['leadnet-signature'] as string)).toBe(true);
    expect(verifySignature(secret, created.body.replace('lead.created', 'lead.updated'), created.headers['leadnet-signature'] as string)).toBe(false);
    expect(verifySignature('whsec_other', created.body, created.headers['leadnet-signature'] as string)).toBe(false);
    expect(created.json).toMatchObject({ type: 'lead.created', owner: { type: 'Company', id: net.company.id } });
    expect(Date.parse(created.json.occurred_at)).not.toBeNaN();
    const shown = await api(t, 'get', `/v1/leads/${lead.id}`, { key: admin });
    expect(created.json.lead).toEqual(shown.body);
    const assigned = got.find((r) => r.json.type === 'lead.assigned')!;
    expect(assigned.json.data).toEqual({ from_id: null, to_id: net.storeNorth.id });
    // The log says what happened; the endpoint lists no secret.
    const log = await deliveries(admin, ep.id);
    expect(log).toHaveLength(3);
    expect(log.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.attemptLog[0].responseCode === 200)).toBe(true);
    const list = await gql(t, admin, `{ webhookEndpoints { ${ENDPOINT} } }`);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(list.body.data.webhookEndpoints.map((e: any) => e.id)).toContain(ep.id);
  });

  test('updates, status changes, reassignments, merges and activities each raise their event', async () => {
    const { net, admin } = await network();
    await endpoint(admin, undefined, '/changes');
    const lead = await createLead(t, admin);
    await api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin, body: { lead: { status: 'Contacted', assignee_id: net.storeSouth.id } } });
    await createLead(t, admin, { lead: { name: 'Again', emails: [{ email: lead.emails[0].email }] } });
    await api(t, 'post', '/v1/lead_activities', { key: admin, body: { lead_activity: { lead_id: lead.id, type: 'LeadActivity::Note', data: { message: 'hi' } } } });
    await worker.drain();
    const types = at('/changes').map((r) => r.json.type);
    for (const type of ['lead.created', 'lead.updated', 'lead.status_changed', 'lead.assigned', 'lead.merged', 'lead_activity.created']) expect(types).toContain(type);
    const status = at('/changes').find((r) => r.json.type === 'lead.status_changed')!;
    expect(status.json.data).toEqual({ from: 'New', to: 'Contacted' });
    expect(new Set(at('/changes').map((r) => r.json.id)).size).toBe(at('/changes').length);
  });

  test('only subscribed events are sent', async () => {
    const { admin } = await network();
    await endpoint(admin, ['LeadStatusChanged'], '/status-only');
    const lead = await createLead(t, admin);
    await api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin, body: { lead: { status: 'Won' } } });
    await worker.drain();
    expect(at('/status-only').map((r) => r.json.type)).toEqual(['lead.status_changed']);
  });
});

describe('webhooks: failures', () => {
  test('a failed delivery is retried with the same event id, and the log shows each attempt', async () => {
    const { admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/retry');
    receiver.replies.push({ status: 500 });
    await createLead(t, admin);
    await worker.drain();
    let [delivery] = await deliveries(admin, ep.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastResponseCode: 500, lastError: 'HTTP 500' });
    const next = (await em().execute(`select next_attempt_at from webhook_deliveries where id = ?`, [delivery.id]))[0].next_attempt_at;
    expect(new Date(next).getTime()).toBeGreaterThan(Date.now() + 10_000); // backoff: not due again at once
    await worker.drain();
    expect(at('/retry')).toHaveLength(1);
    await em().execute(`update webhook_deliveries set next_attempt_at = now() where id = ?`, [delivery.id]);
    await worker.drain();
    [delivery] = await deliveries(admin, ep.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, lastResponseCode: 200 });
    expect(delivery.attemptLog.map((a: any) => [a.attempt, a.succeeded, a.responseCode])).toEqual([
      [1, false, 500],
      [2, true, 200],
    ]);
    const sent = at('/retry');
    expect(sent.map((r) => r.json.id)).toEqual([delivery.eventId, delivery.eventId]);
    expect(sent.map((r) => r.headers['leadnet-delivery-attempt'])).toEqual(['1', '2']);
  });

  test('redirects are not followed; slow receivers time out', async () => {
    const { admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/redirect');
    receiver.replies.push({ status: 302, headers: { location: receiver.url('/elsewhere') } });
    await createLead(t, admin);
    await worker.drain();
    expect(at('/elsewhere')).toHaveLength(0);
    let [d] = await deliveries(admin, ep.id);
    expect(d).toMatchObject({ status: 'pending', lastResponseCode: 302 });
    expect(d.lastError).toMatch(/not followed/);
    receiver.replies.push({ status: 200, delayMs: 3000 });
    await em().execute(`update webhook_deliveries set next_attempt_at = now() where id = ?`, [d.id]);
    const impatient = workerFor(t.orm, { ...t.config, webhooks: { ...t.config.webhooks, timeoutMs: 300 } });
    await impatient.drain();
    [d] = await deliveries(admin, ep.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 2, lastResponseCode: null });
    expect(d.lastError).toMatch(/timed out/);
  });

  test('after the retry period a delivery fails; an endpoint failing too long is disabled', async () => {
    const { admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/down');
    receiver.replies.push({ status: 503 }, { status: 503 });
    await createLead(t, admin);
    await worker.drain();
    // As if the first failure and the delivery were long ago.
    await em().execute(`update webhook_endpoints set failing_since = now() - interval '100 hours' where id = ?`, [ep.id]);
    await em().execute(`update webhook_deliveries set created_at = now() - interval '25 hours', next_attempt_at = now() where endpoint_id = ?`, [ep.id]);
    await worker.drain();
    const [d] = await deliveries(admin, ep.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 2 });
    const shown = await gql(t, admin, `query($id: ID!) { webhookEndpoint(id: $id) { ${ENDPOINT} } }`, { id: ep.id });
    expect(shown.body.errors).toBeUndefined();
    expect(shown.body.data.webhookEndpoint).toMatchObject({ enabled: false, disabledReason: 'failing for 72 hours' });
    expect(Date.now() - Date.parse(shown.body.data.webhookEndpoint.failingSince)).toBeGreaterThan(99 * 3_600_000);
    // Disabled: events meanwhile are not queued for it; an admin enables it again, then redelivers.
    const whileDisabled = await createLead(t, admin);
    await worker.drain();
    expect(at('/down')).toHaveLength(2);
    const refused = await gql(t, admin, `mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }`, { id: d.id });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const enabled = await gql(t, admin, `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: true}) { enabled disabledReason failingSince } }`, { id: ep.id });
    expect(enabled.body.data.updateWebhookEndpoint).toEqual({ enabled: true, disabledReason: null, failingSince: null });
    const again = await gql(t, admin, `mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { status } }`, { id: d.id });
    expect(again.body.data.redeliverWebhook.status).toBe('pending');
    await worker.drain();
    expect(at('/down').map((r) => r.json.id)).toContain(d.eventId);
    expect(at('/down')).toHaveLength(3);
    expect(at('/down').map((r) => r.json.lead.id)).not.toContain(whileDisabled.id);
  });

  test('nothing is lost across a restart: events written while no worker ran are delivered by the next one', async () => {
    const { admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/restart');
    // The first service instance: the receiver is down, so its deliveries fail; then it stops.
    const first = await initAppOrm(t.config.databaseUrl!);
    const firstWorker = workerFor(first);
    receiver.replies.push({ status: 502 }, { status: 502 });
    const a = await createLead(t, admin);
    const b = await createLead(t, admin);
    await firstWorker.drain();
    await firstWorker.stop();
    await first.close();
    expect(at('/restart')).toHaveLength(2);
    // Written while nothing delivers.
    const c = await createLead(t, admin);
    // The restarted service (a new connection pool and worker).
    const second = await initAppOrm(t.config.databaseUrl!);
    try {
      const secondWorker = workerFor(second);
      await second.em.fork().execute(`update webhook_deliveries set next_attempt_at = now() where endpoint_id = ?`, [ep.id]);
      await secondWorker.drain();
    } finally {
      await second.close();
    }
    const delivered = at('/restart').slice(2).map((r) => r.json.lead.id);
    expect(delivered.sort()).toEqual([a.id, b.id, c.id].sort());
    expect((await deliveries(admin, ep.id)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  test('one delivering process at a time: while another holds the lock, a round does nothing', async () => {
    const { admin } = await network();
    await endpoint(admin, ['LeadCreated'], '/locked');
    await createLead(t, admin);
    const holder = em();
    await holder.transactional(async (tx) => {
      await tx.execute('select pg_advisory_xact_lock(?)', [WEBHOOK_LOCK]);
      expect(await worker.tick()).toEqual({ locked: false, dispatched: 0, attempted: 0 });
    });
    await worker.drain();
    expect(at('/locked')).toHaveLength(1);
  });
});

describe('webhooks: scope', () => {
  test("a retailer's endpoint hears only about the leads it may see; another company's endpoint hears nothing", async () => {
    const { net, admin } = await network();
    const otherRetailer = await f.retailer(em());
    const otherCr = await f.companyRetailer(em(), net.company, otherRetailer);
    const otherStore = await f.crl(em(), otherCr);
    const dealer = await f.userWithKey(em(), Role.RetailerAdmin, net.retailer);
    const otherDealer = await f.userWithKey(em(), Role.RetailerAdmin, otherRetailer);
    const stranger = (await network()).admin;
    await endpoint(dealer.key, undefined, '/dealer');
    await endpoint(otherDealer.key, undefined, '/other-dealer');
    await endpoint(stranger, undefined, '/stranger');
    await endpoint(admin, undefined, '/brand');
    const mine = await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
    const theirs = await createLead(t, admin, quoteRequest({ assignee_id: otherStore.id }));
    await worker.drain();
    const leadsAt = (path: string) => new Set(at(path).map((r) => r.json.lead?.id ?? r.json.data?.to_id));
    expect(leadsAt('/dealer')).toEqual(new Set([mine.id]));
    expect(leadsAt('/other-dealer')).toEqual(new Set([theirs.id]));
    expect(at('/stranger')).toHaveLength(0);
    expect(leadsAt('/brand')).toEqual(new Set([mine.id, theirs.id]));
    // Reassigned to the other store: the first dealer hears no more of it.
    receiver.received.length = 0;
    await api(t, 'patch', `/v1/leads/${mine.id}`, { key: admin, body: { lead: { assignee_id: otherStore.id } } });
    await worker.drain();
    expect(at('/dealer')).toHaveLength(0);
    expect(at('/other-dealer').map((r) => r.json.type).sort()).toEqual(['lead.assigned', 'lead.updated', 'lead_activity.created']);
  });
});

describe('webhooks: management', () => {
  test('admins of the owner only; URLs are http(s); secrets rotate and sign from then on', async () => {
    const { net, admin } = await network();
    const manager = await f.userWithKey(em(), Role.CompanyTerritoryManager, net.company, { territory: net.north });
    const stranger = (await network()).admin;
    const create = (key: string, url: string) =>
      gql(t, key, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`, { input: { url, events: ['LeadCreated'] } });
    expect((await create(manager.key, receiver.url())).body.errors[0].extensions.code).toBe('FORBIDDEN');
    for (const url of ['ftp://example.com/x', 'javascript:alert(1)', 'not a url', '']) {
      const res = await create(admin, url);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(res.body.errors[0].extensions.details[0].field).toBe('url');
    }
    const noEvents = await gql(t, admin, `mutation { createWebhookEndpoint(input: {url: "https://example.com/h", events: []}) { secret } }`);
    expect(noEvents.body.errors[0].extensions.details[0].field).toBe('events');
    const { secret, endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/rotate');
    expect(secret).toMatch(/^whsec_/);
    expect((await gql(t, stranger, `query($id: ID!) { webhookEndpoint(id: $id) { id } }`, { id: ep.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await gql(t, stranger, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id: ep.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await gql(t, admin, `query { webhookEndpoint(id: "nope") { id } }`)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    // Stored sealed, never as written.
    const stored = (await em().execute(`select secret from webhook_endpoints where id = ?`, [ep.id]))[0].secret;
    expect(stored).not.toContain(secret.slice(6));
    const rotated = await gql(t, admin, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id } } }`, { id: ep.id });
    const fresh = rotated.body.data.rotateWebhookSecret.secret;
    expect(fresh).not.toBe(secret);
    await createLead(t, admin);
    await worker.drain();
    const [sent] = at('/rotate');
    expect(verifySignature(fresh, sent.body, sent.headers['leadnet-signature'] as string)).toBe(true);
    expect(verifySignature(secret, sent.body, sent.headers['leadnet-signature'] as string)).toBe(false);
    const disabled = await gql(t, admin, `mutation($id: ID!) { disableWebhookEndpoint(id: $id) { enabled disabledReason } }`, { id: ep.id });
    expect(disabled.body.data.disableWebhookEndpoint).toEqual({ enabled: false, disabledReason: 'disabled by an admin' });
    await createLead(t, admin);
    await worker.drain();
    expect(at('/rotate')).toHaveLength(1);
  });
});

describe('the running service', () => {
  test('delivers by itself: the app starts the worker under the leader lock, no drain needed', async () => {
    const live = await createTestApp({ WEBHOOK_WORKER: 'true', GEOCODER: 'none', WEBHOOK_POLL_MS: '50', WORKER_LOCK_RETRY_MS: '100', WEBHOOK_SECRET_KEY: 'k'.repeat(40), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const net = await f.network(live.em());
      const admin = await f.userWithKey(live.em(), Role.CompanyAdmin, net.company);
      const created = await gql(live, admin.key, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }`, {
        input: { url: receiver.url('/live'), events: ['LeadCreated'] },
      });
      expect(created.body.errors).toBeUndefined();
      const lead = await createLead(live, admin.key);
      for (let i = 0; i < 300 && !at('/live').length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(at('/live').map((r) => [r.json.type, r.json.lead.id])).toEqual([['lead.created', lead.id]]);
    } finally {
      await live.close();
    }
  });
});

describe('webhooks: safety (WEBHOOK_ALLOW_PRIVATE_URLS unset)', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ WEBHOOK_WORKER: 'false', GEOCODER: 'none' });
  });
  afterAll(() => strict.close());

  test('an endpoint on this machine, a private, loopback or link-local address is refused on create and update', async () => {
    const net = await f.network(strict.em());
    const admin = await f.userWithKey(strict.em(), Role.CompanyAdmin, net.company);
    const create = (url: string) =>
      gql(strict, admin.key, `mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id url } } }`, {
        input: { url, events: ['LeadCreated'] },
      });
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.1/hook', 'http://192.168.1.20/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/', 'http://0.0.0.0/', 'http://localhost:3000/hook', 'https://api.localhost/']) {
      const res = await create(url);
      expect([url, res.body.errors?.[0]?.extensions?.code]).toEqual([url, 'BAD_USER_INPUT']);
      expect(JSON.stringify(res.body.errors[0].extensions)).toMatch(/url/);
    }
    const ok = await create('https://hooks.example.com/leadnet');
    expect(ok.body.errors).toBeUndefined();
    const updated = await gql(strict, admin.key, `mutation($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { url } }`, {
      id: ok.body.data.createWebhookEndpoint.endpoint.id,
      input: { url: 'http://10.1.2.3/', events: ['LeadCreated'] },
    });
    expect(updated.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  test('a host name that resolves to a private address gets no request; the log says why', async () => {
    const { net, admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/resolved');
    // Stored while allowed, or resolving elsewhere when created: delivery checks what the name resolves to now.
    await em().getConnection().execute(`update webhook_endpoints set url = ? where id = ?`, [receiver.url('/resolved').replace('127.0.0.1', 'localhost'), ep.id]);
    const strictWorker = workerFor(t.orm, { ...t.config, webhooks: { ...t.config.webhooks, allowPrivateUrls: false } });
    await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id }));
    await strictWorker.drain(1);
    expect(at('/resolved')).toEqual([]);
    const [delivery] = await deliveries(admin, ep.id);
    expect(delivery.status).toBe('pending');
    expect(delivery.lastError).toMatch(/^refused: localhost resolves to a non-public address/);
  });
});

describe('webhooks: retention', () => {
  test('prune deletes dispatched events older than LEAD_EVENTS_RETENTION_DAYS with their delivery log, and keeps what a pending delivery needs', async () => {
    const { admin } = await network();
    const { endpoint: ep } = await endpoint(admin, ['LeadCreated'], '/retention');
    const lead = await createLead(t, admin);
    await worker.drain();
    const db = em().getConnection();
    const [{ id: delivered }] = await db.execute(`select e.id from lead_events e join webhook_deliveries d on d.event_id = e.id where d.endpoint_id = ?`, [ep.id]);
    const old = `now() - make_interval(days => ${t.config.webhooks.retentionDays + 1})`;
    const inserted = await db.execute(
      `insert into lead_events (type, lead_id, occurred_at, dispatched_at) values
         ('lead.updated', ?, ${old}, now()), ('lead.updated', ?, ${old}, null), ('lead.updated', ?, now() - interval '1 day', now())
       returning id`,
      [lead.id, lead.id, lead.id],
    );
    const [oldDispatched, oldUndispatched, recent] = inserted.map((r: any) => r.id);
    // The delivered event grows old with its (succeeded) delivery; another old one still has a pending delivery.
    await db.execute(`update lead_events set occurred_at = ${old} where id = ?`, [delivered]);
    const [{ id: pendingEvent }] = await db.execute(
      `insert into lead_events (type, lead_id, occurred_at, dispatched_at) values ('lead.updated', ?, ${old}, now()) returning id`,
      [lead.id],
    );
    await db.execute(`insert into webhook_deliveries (endpoint_id, event_id, event_seq, next_attempt_at) select ?, id, seq, now() + interval '1 hour' from lead_events where id = ?`, [ep.id, pendingEvent]);

    expect(await worker.prune()).toBeGreaterThanOrEqual(2);
    const left = new Set((await db.execute(`select id from lead_events where id = any(?::uuid[])`, [`{${[delivered, oldDispatched, oldUndispatched, recent, pendingEvent].join(',')}}`])).map((r: any) => r.id));
    expect([...left].sort()).toEqual([oldUndispatched, recent, pendingEvent].sort());
    expect((await deliveries(admin, ep.id)).map((d) => d.eventId)).toEqual([pendingEvent]);
  });
});
