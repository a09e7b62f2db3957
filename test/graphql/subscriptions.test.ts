// Live lead events over WebSocket (graphql-ws), served by one app and caused through another on the same
// database: PostgreSQL carries them between processes; scope decides who hears what.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { startChild, stopChildren } from '../support/service';
import { parseConfig } from '../../src/config';
import { initAppOrm } from '../../mikro-orm.config';
import { buildApp, type App } from '../../src/app';
import type { MikroORM } from '@mikro-orm/postgresql';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { MAX_SUBSCRIPTIONS_PER_USER } from '../../src/modules/lead-events/lead-events.resolver';
import { until } from '../webhooks/receiver';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
let listener: { app: App; orm: MikroORM; server: Server; url: string };
const clients: Client[] = [];

interface Received {
  events: any[];
  errors: unknown[];
  /** Resolves with the events once `count` have arrived (fails the test after 30 s). */
  take(count: number): Promise<any[]>;
}

const EVENT = `id type ownerType ownerId leadId leadActivityId lead { id name status assigneeId } leadActivity { type }`;

function subscribe(key: string | null, query = `subscription { leadEvents { ${EVENT} } }`): Received {
  const client = createClient({ url: listener.url, webSocketImpl: WebSocket, connectionParams: key ? { 'X-Api-Key': key } : {}, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined });
  clients.push(client);
  const received: Received = {
    events: [],
    errors: [],
    take: (count) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          if (received.events.length >= count) return resolve(received.events.slice(0, count));
          if (received.errors.length) return reject(received.errors[0]);
          if (Date.now() - started > 30_000) return reject(new Error(`got ${received.events.length} of ${count} events: ${JSON.stringify(received.events.map((e) => e.type))}`));
          setTimeout(check, 20);
        };
        check();
      }),
  };
  client.subscribe({ query }, {
    next: (value: any) => (value.errors ? received.errors.push(value.errors) : received.events.push(value.data.leadEvents)),
    error: (e) => received.errors.push(e),
    complete: () => undefined,
  });
  return received;
}

/**
 * Waits until these subscriptions are registered on the server (its hub has a listener for each, on
 * top of the `before` it had): from then on they hear every event. A condition, not a delay.
 */
async function subscribed(before: number, ...subscriptions: Received[]): Promise<void> {
  await until(() => listener.app.subscriptions() >= before + subscriptions.length || subscriptions.some((s) => s.errors.length > 0), 'subscriptions registered');
  for (const s of subscriptions) expect(s.errors).toEqual([]);
}

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  // A second service instance on the same database, with its own pool and listening connection.
  const url = t.orm.config.get('clientUrl')!;
  const orm = await initAppOrm(url);
  const app = await buildApp(parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }), orm);
  const server = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  app.attach(server);
  listener = { app, orm, server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await listener.app.stop();
  await new Promise((resolve) => listener.server.close(resolve));
  await listener.orm.close();
  await t.close();
});

test('events reach the subscribers who may see the lead, and no one else', async () => {
  const before = listener.app.subscriptions();
  const admin = subscribe(r.users.companyAdmin.key);
  const north = subscribe(r.users.locationUser.key); // sees storeNorth's leads
  const south = subscribe(r.users.salesAssociate.key); // sees storeSouth's leads
  const other = subscribe(r.users.otherAdmin.key); // another company
  const retailer = subscribe(r.users.retailerAdmin.key); // the retailer of both stores
  await subscribed(before, admin, north, south, other, retailer);

  const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ name: 'Live Lead', assignee_id: r.net.storeNorth.id }));
  // An assignment is an offer (docs/lead-loop.md): lead.offered follows lead.assigned.
  const created = await admin.take(4);
  expect(created.map((e) => e.type).sort()).toEqual(['lead.assigned', 'lead.created', 'lead.offered', 'lead_activity.created']);
  for (const e of created) {
    expect(e).toMatchObject({ leadId: lead.id, ownerType: 'Company', ownerId: r.net.company.id, lead: { id: lead.id, name: 'Live Lead', assigneeId: r.net.storeNorth.id } });
  }
  expect(created.find((e) => e.type === 'lead_activity.created')).toMatchObject({ leadActivityId: lead.lead_activities[0].id, leadActivity: { type: 'LeadActivity::QuoteRequest' } });
  expect((await north.take(4)).map((e) => e.leadId)).toEqual([lead.id, lead.id, lead.id, lead.id]);
  expect((await retailer.take(4)).map((e) => e.leadId)).toEqual([lead.id, lead.id, lead.id, lead.id]);

  // A status change through PATCH: status_changed, its StatusChange activity, updated.
  await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.locationUser.key, body: { lead: { status: 'Contacted' } } });
  const changed = await admin.take(7);
  expect(changed.slice(4).map((e) => e.type).sort()).toEqual(['lead.status_changed', 'lead.updated', 'lead_activity.created']);
  expect(changed[6].lead.status).toBe('Contacted');

  // A duplicate create merges: lead.merged (and the merge note's activity).
  await createLead(t, r.users.companyAdmin.key, quoteRequest({ emails: lead.emails.map((e: any) => ({ email: e.email })) }));
  const merged = await admin.take(10);
  expect(merged.slice(7).map((e) => e.type).sort()).toEqual(['lead.merged', 'lead_activity.created', 'lead_activity.created']);

  // Those who may not see the lead heard nothing: their first event is about a lead of their own.
  const southLead = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeSouth.id }));
  const otherLead = await createLead(t, r.users.otherAdmin.key, quoteRequest());
  expect((await south.take(1))[0].leadId).toBe(southLead.id);
  expect((await other.take(1))[0].leadId).toBe(otherLead.id);
  expect(south.events.every((e) => e.leadId === southLead.id)).toBe(true);
  expect(other.events.every((e) => e.leadId === otherLead.id)).toBe(true);
  expect(north.events.some((e) => e.leadId === southLead.id || e.leadId === otherLead.id)).toBe(false);
});

test('types narrows the events; an unknown type is BAD_USER_INPUT', async () => {
  const before = listener.app.subscriptions();
  const statusOnly = subscribe(r.users.companyAdmin.key, `subscription { leadEvents(types: ["lead.status_changed"]) { type leadId lead { status } } }`);
  const wrong = subscribe(r.users.companyAdmin.key, `subscription { leadEvents(types: ["lead.exploded"]) { type } }`);
  await subscribed(before, statusOnly);
  await until(() => wrong.errors.length > 0, 'the unknown type refused');
  const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest());
  await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Won' } } });
  expect(await statusOnly.take(1)).toEqual([{ type: 'lead.status_changed', leadId: lead.id, lead: { status: 'Won' } }]);
  expect(statusOnly.events).toHaveLength(1);
  expect(JSON.stringify(wrong.errors)).toContain('BAD_USER_INPUT');
});

test('subscriptions meet the same document limits as queries', async () => {
  let deep = 'id';
  for (let i = 0; i < 6; i++) deep = `leadActivities { lead { ${deep} } }`;
  const tooDeep = subscribe(r.users.companyAdmin.key, `subscription { leadEvents { lead { ${deep} } } }`);
  await expect(tooDeep.take(1)).rejects.toEqual([expect.objectContaining({ message: expect.stringContaining('GRAPHQL_MAX_DEPTH') })]);
});

test('a connection without a valid key is refused; the platform operator may not subscribe', async () => {
  for (const key of [null, 'not-a-key']) {
    const anonymous = subscribe(key);
    await expect(anonymous.take(1)).rejects.toMatchObject({ code: 4403 });
  }
  const operator = subscribe(r.users.operator.key);
  await expect(operator.take(1)).rejects.toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
});

test("a key revoked while subscribed hears nothing more: the next event ends the subscription with UNAUTHENTICATED", async () => {
  const user = await f.userWithKey(t.em(), Role.CompanyAdmin, r.net.company);
  const held = listener.app.subscriptions();
  const live = subscribe(user.key);
  const witness = subscribe(r.users.companyAdmin.key, `subscription { leadEvents(types: ["lead.created"]) { leadId } }`);
  await subscribed(held, live, witness);
  const before = await createLead(t, r.users.companyAdmin.key, quoteRequest());
  expect((await live.take(1))[0].leadId).toBe(before.id);
  const keys = await gql(t, r.users.companyAdmin.key, `query($id: ID!) { apiKeys(userId: $id) { id } }`, { id: user.user.id });
  const revoked = await gql(t, r.users.companyAdmin.key, `mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }`, { id: keys.body.data.apiKeys[0].id });
  expect(revoked.body.errors).toBeUndefined();
  const seen = live.events.length;
  const after = await createLead(t, r.users.companyAdmin.key, quoteRequest());
  await until(() => witness.events.some((e) => e.leadId === after.id), 'the witness hears the lead');
  await until(() => live.errors.length > 0, 'the revoked subscription ends');
  expect(JSON.stringify(live.errors)).toContain('UNAUTHENTICATED');
  expect(live.events.slice(seen).some((e) => e.leadId === after.id)).toBe(false);
  // A new subscription with the revoked key is refused too.
  const again = subscribe(user.key);
  await expect(again.take(1)).rejects.toMatchObject({ code: 4403 });
});

test('one user may hold a bounded number of subscriptions at once; ending one makes room', async () => {
  const user = await f.userWithKey(t.em(), Role.CompanyAdmin, r.net.company);
  const query = `subscription { leadEvents(types: ["lead.created"]) { leadId } }`;
  // Over one connection, as many as a client cares to send.
  const client = createClient({ url: listener.url, webSocketImpl: WebSocket, connectionParams: { 'X-Api-Key': user.key }, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined });
  clients.push(client);
  const outcomes: Array<{ events: any[]; errors: any[] }> = [];
  const stops: Array<() => void> = [];
  for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_USER + 5; i++) {
    const outcome = { events: [] as any[], errors: [] as any[] };
    outcomes.push(outcome);
    stops.push(client.subscribe({ query }, { next: (v: any) => (v.errors ? outcome.errors.push(v.errors) : outcome.events.push(v.data.leadEvents)), error: (e) => outcome.errors.push(e), complete: () => undefined }));
  }
  await until(() => outcomes.filter((o) => o.errors.length).length === 5, 'the subscriptions over the limit refused');
  // Which ones were admitted depends on the order the server handled them in.
  const refused = outcomes.filter((o) => o.errors.length);
  const admitted = outcomes.filter((o) => !o.errors.length);
  expect(JSON.stringify(refused.map((o) => o.errors))).toContain('RATE_LIMITED');
  expect(admitted).toHaveLength(MAX_SUBSCRIPTIONS_PER_USER);
  const lead = await createLead(t, r.users.companyAdmin.key, quoteRequest());
  await until(() => admitted.every((o) => o.events.length === 1), 'every admitted subscription hears the lead');
  expect(admitted.every((o) => o.events[0].leadId === lead.id)).toBe(true);
  // One ended subscription makes room for a new one; another user is not affected.
  const held = listener.app.subscriptions();
  stops[outcomes.indexOf(admitted[0])]();
  await until(() => listener.app.subscriptions() < held, 'the ended subscription released');
  const before = listener.app.subscriptions();
  const other = subscribe(r.users.retailerAdmin.key, query);
  const room = { events: [] as any[], errors: [] as any[] };
  client.subscribe({ query }, { next: (v: any) => (v.errors ? room.errors.push(v.errors) : room.events.push(v.data.leadEvents)), error: (e) => room.errors.push(e), complete: () => undefined });
  await until(() => listener.app.subscriptions() >= before + 2 || room.errors.length > 0, 'the new subscriptions registered');
  expect(other.errors).toEqual([]);
  expect(room.errors).toEqual([]);
  const next = await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
  await until(() => room.events.length > 0 || room.errors.length > 0, 'the new subscription hears the lead');
  expect(room.events.map((e) => e.leadId)).toEqual([next.id]);
  expect((await other.take(1))[0].leadId).toBe(next.id);
});

test('a subscription sent over HTTP is refused with a clear error', async () => {
  const res = await gql(t, r.users.companyAdmin.key, `subscription { leadEvents { id } }`);
  expect(res.body.errors[0]).toMatchObject({ message: 'Subscriptions are served over WebSocket (graphql-ws protocol) at /graphql', extensions: { code: 'BAD_REQUEST' } });
});

describe('across two service processes', () => {
  afterAll(() => stopChildren());

  /** `npm start`'s entry point on the test database; resolves with its URL once it is listening. */
  const serviceProcess = () => startChild({ DATABASE_URL: t.orm.config.get('clientUrl')! }).ready();

  test('a change made through one process reaches subscribers of the other, within scope', async () => {
    const [a, b] = await Promise.all([serviceProcess(), serviceProcess()]);
    const url = `${b.replace('http', 'ws')}/graphql`;
    const client = (key: string) => {
      const received: any[] = [];
      const c = createClient({ url, webSocketImpl: WebSocket, connectionParams: { 'X-Api-Key': key }, retryAttempts: 0, lazy: false, onNonLazyError: () => undefined });
      clients.push(c);
      c.subscribe({ query: `subscription { leadEvents(types: ["lead.created"]) { type leadId lead { name } } }` }, { next: (v: any) => received.push(v.data?.leadEvents ?? v.errors), error: (e) => received.push(e), complete: () => undefined });
      return received;
    };
    const admin = client(r.users.companyAdmin.key);
    const other = client(r.users.otherAdmin.key);

    const post = (key: string, body: object) =>
      fetch(`${a}/v1/leads`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((res) => res.json() as Promise<{ id: string }>);
    // Registered in the other process once it delivers a probe lead of the subscriber's own company (a
    // condition, not a delay): probes are posted until one arrives, and are left out below.
    const probes = new Map<any[], string[]>([
      [admin, []],
      [other, []],
    ]);
    const probed = async (key: string, received: any[]) => {
      for (const deadline = Date.now() + 30_000; !received.some((e) => e.lead?.name === 'Probe'); ) {
        if (Date.now() > deadline) throw new Error('no probe lead delivered within 30 s');
        probes.get(received)!.push((await post(key, quoteRequest({ name: 'Probe' }))).id);
        for (const wait = Date.now() + 2000; received.length === 0 && Date.now() < wait; ) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await Promise.all([probed(r.users.companyAdmin.key, admin), probed(r.users.otherAdmin.key, other)]);
    for (const [received, ids] of probes) for (const e of received) expect(ids).toContain(e.leadId); // own probes only

    const mine = await post(r.users.companyAdmin.key, quoteRequest({ name: 'Across Processes' }));
    const theirs = await post(r.users.otherAdmin.key, quoteRequest({ name: 'Other Company' }));
    const real = (events: any[]) => events.filter((e) => e.lead?.name !== 'Probe');
    await until(() => real(admin).length >= 1 && real(other).length >= 1, 'both events delivered');
    expect(real(admin)).toEqual([{ type: 'lead.created', leadId: mine.id, lead: { name: 'Across Processes' } }]);
    expect(real(other)).toEqual([{ type: 'lead.created', leadId: theirs.id, lead: { name: 'Other Company' } }]);
  }, 180_000); // two service processes start (migrations checked, schema built): most of a minute on a busy machine
});
