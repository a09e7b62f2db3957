import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { api, createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles, withGeocoder } from '../support/leads';
import { generatePlainKey, hashKey, keyPrefix } from '../../src/auth/api-keys';
import { ApiKey } from '../../src/modules/user/api-key.entity';
import { Lead } from '../../src/modules/lead/lead.entity';
import { LeadService } from '../../src/modules/lead/lead.service';
import { LeadRepository } from '../../src/modules/lead/lead.repository';
import { idempotencyQueries } from '../../src/rest/idempotency.repository';
import type { Coordinates } from '../../src/geo/geocoder';

/**
 * `Idempotency-Key` on /v1 writes (docs/partners.md), as a partner meets it over HTTP: replays,
 * mismatches, requests still running, keys scoped to their API key, lost answers and dropped connections.
 */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
});
afterAll(() => t.close());
afterEach(() => jest.restoreAllMocks());

let n = 0;
const newKey = () => `test-key-${process.pid}-${++n}-${Date.now()}`;
const withKey = (key: string) => ({ 'Idempotency-Key': key });

/** The stored leads and quote requests of a person, by email. */
async function stored(email: string) {
  const em = t.em();
  const leads = await em.find(Lead, { emails: { email } }, { populate: ['leadActivities'] });
  return { leads: leads.length, activities: leads.flatMap((l) => l.leadActivities.getItems().map((a) => a.type)) };
}

/** A geocoder that holds each call until `open()`; `called` resolves at the first call. */
function gatedGeocoder() {
  let open!: () => void;
  let called!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const first = new Promise<void>((resolve) => (called = resolve));
  const spy = withGeocoder({
    async geocode(): Promise<Coordinates | null> {
      called();
      await gate;
      return { latitude: 45.5, longitude: -122.6 };
    },
  });
  return { open, called: first, spy };
}

const located = (email: string) =>
  quoteRequest({ emails: [{ email }], location: { street_line_one: '1 Main St', city: 'Portland', province: 'OR', postal_code: '97201', country: 'US' } });

describe('Idempotency-Key on POST /v1/leads', () => {
  test('the same key and body replay the first answer (status, body, Idempotent-Replayed: true); one lead is written', async () => {
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'replay@example.com' }] });
    const first = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await stored('replay@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });

  test('the same key with another body, method or path is 422 with the contract envelope; nothing is written', async () => {
    const key = newKey();
    const lead = await createLead(t, r.users.companyAdmin.key);
    const body = quoteRequest({ emails: [{ email: 'mismatch@example.com' }] });
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) })).status).toBe(201);

    const other = quoteRequest({ emails: [{ email: 'mismatch.other@example.com' }] });
    for (const [method, path, sent] of [
      ['post', '/v1/leads', other],
      ['post', '/v1/leads?include=emails', body],
      ['patch', `/v1/leads/${lead.id}`, { lead: { name: 'Renamed' } }],
      ['delete', `/v1/leads/${lead.id}`, undefined],
    ] as const) {
      const res = await api(t, method, path, { key: r.users.companyAdmin.key, body: sent, headers: withKey(key) });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 422 });
      expect(res.body).toEqual({
        status: 422,
        error: 'Unprocessable Entity',
        message: expect.stringContaining('Idempotency key was used for another request'),
        errors: { idempotency_key: [expect.any(String)] },
        details: [{ field: 'idempotency_key', code: 'invalid', message: expect.any(String), full_message: expect.any(String) }],
      });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await stored('mismatch.other@example.com')).toEqual({ leads: 0, activities: [] });
    expect((await api(t, 'get', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key })).body.name).toBe(lead.name);
  });

  test('two requests at once with one key: one runs, the other is 409 until the first is answered, then replays it', async () => {
    const key = newKey();
    const body = located('concurrent@example.com');
    const geo = gatedGeocoder();
    const first = api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    await geo.called; // the first request is inside its write, holding the key

    const second = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ status: 409, error: 'Conflict', message: expect.stringMatching(/still being processed/) });
    expect(second.headers['retry-after']).toBe('1');
    // Another body with the key is refused the same way while the first runs: nothing is known yet.
    const other = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: located('concurrent.other@example.com'), headers: withKey(key) });
    expect(other.status).toBe(409);

    geo.open();
    const answered = await first;
    expect(answered.status).toBe(201);
    const third = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: third.status, replayed: third.headers['idempotent-replayed'], text: third.text }).toEqual({ status: 201, replayed: 'true', text: answered.text });
    expect(await stored('concurrent@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });

  test('a key belongs to its API key: another key of the same user, or another tenant, using it runs its own request', async () => {
    const key = newKey();
    const em = t.em();
    const plain = generatePlainKey();
    em.create(ApiKey, { user: r.users.companyAdmin.user, keyHash: hashKey(plain), prefix: keyPrefix(plain), label: 'second' });
    await em.flush();

    const body = quoteRequest({ emails: [{ email: 'scoped@example.com' }] });
    const first = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(first.status).toBe(201);

    // The same user's other key: not a replay, and not a mismatch either (its own key space).
    const sameUser = await api(t, 'post', '/v1/leads', { key: plain, body: quoteRequest({ emails: [{ email: 'scoped.second@example.com' }] }), headers: withKey(key) });
    expect({ status: sameUser.status, replayed: sameUser.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    // Another company's admin with the same key and body: its own lead, never the first answer.
    const otherTenant = await api(t, 'post', '/v1/leads', { key: r.users.otherAdmin.key, body, headers: withKey(key) });
    expect({ status: otherTenant.status, replayed: otherTenant.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    expect(otherTenant.body.id).not.toBe(first.body.id);
    expect(await stored('scoped@example.com')).toEqual({ leads: 2, activities: ['LeadActivity::QuoteRequest', 'LeadActivity::QuoteRequest'] });
  });

  test('a POST retried after its answer was lost creates one lead (no merge: the create ran once)', async () => {
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'lost.answer@example.com' }] });
    await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) }); // the answer never reached the client
    const retry = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // Without the key the retry would have merged into the lead (a Note saying so): the key kept it to one create.
    expect(await stored('lost.answer@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });

  test('a connection killed mid-request, then the retry with the key: exactly one lead', async () => {
    const server = http.createServer(t.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const key = newKey();
      const payload = JSON.stringify(located('killed@example.com'));
      const geo = gatedGeocoder();
      const sent = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/leads',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), 'X-Api-Key': r.users.companyAdmin.key, ...withKey(key) },
      });
      sent.on('error', () => undefined);
      sent.end(payload);
      await geo.called; // the server is inside the write
      sent.destroy(); // the client gives up: its connection is gone
      geo.open();

      // The client sends it again with the same key until it gets an answer that is not "still running".
      let retry;
      for (let attempt = 0; attempt < 100; attempt++) {
        retry = await request(server).post('/v1/leads').set('X-Api-Key', r.users.companyAdmin.key).set(withKey(key)).send(JSON.parse(payload));
        if (retry.status !== 409) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(retry!.status).toBe(201);
      expect(retry!.headers['idempotent-replayed']).toBe('true');
      expect(await stored('killed@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('what is stored', () => {
  test("a 422 of the write is stored and replayed; fixing the body needs a new key", async () => {
    const key = newKey();
    const bad = quoteRequest({ name: ' ', emails: [{ email: 'fix.me@example.com' }] });
    const first = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: bad, headers: withKey(key) });
    expect(first.status).toBe(422);
    const again = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: bad, headers: withKey(key) });
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'], text: again.text }).toEqual({ status: 422, replayed: 'true', text: first.text });
    const fixed = quoteRequest({ name: 'Fixed', emails: [{ email: 'fix.me@example.com' }] });
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: fixed, headers: withKey(key) })).status).toBe(422);
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: fixed, headers: withKey(newKey()) })).status).toBe(201);
  });

  test('a 5xx is not stored: the same key runs the request again', async () => {
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'five.hundred@example.com' }] });
    jest.spyOn(LeadService.prototype, 'create').mockRejectedValueOnce(new Error('the service fell over'));
    const failed = await request(t.app).post('/v1/leads').set('X-Api-Key', r.users.companyAdmin.key).set(withKey(key)).send(body);
    expect(failed.status).toBe(500);
    const retry = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: retry.status, replayed: retry.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    expect(await stored('five.hundred@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });

  test('the answer is stored in the transaction of the write: when storing fails, the lead is not written either', async () => {
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'atomic@example.com' }] });
    jest.spyOn(idempotencyQueries, 'store').mockRejectedValueOnce(new Error('connection lost before the answer was stored'));
    const failed = await request(t.app).post('/v1/leads').set('X-Api-Key', r.users.companyAdmin.key).set(withKey(key)).send(body);
    expect(failed.status).toBe(500);
    expect(await stored('atomic@example.com')).toEqual({ leads: 0, activities: [] });
    const retry = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(retry.status).toBe(201);
    expect(await stored('atomic@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });

  test('a deadlock inside a keyed write: the service does not run itself again inside the outer transaction, the write runs again whole', async () => {
    const deadlockOnce = () => {
      const insert = LeadRepository.prototype.insert;
      let thrown = false;
      return jest.spyOn(LeadRepository.prototype, 'insert').mockImplementation(function (this: LeadRepository, tx, lead) {
        if (thrown) return insert.call(this, tx, lead);
        thrown = true;
        return Promise.reject(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
      });
    };
    // Without a key the service's own transaction is the outermost: it runs its work again itself.
    let inserts = deadlockOnce();
    let creates = jest.spyOn(LeadService.prototype, 'create');
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest({ emails: [{ email: 'deadlock.plain@example.com' }] }) })).status).toBe(201);
    expect({ creates: creates.mock.calls.length, inserts: inserts.mock.calls.length }).toEqual({ creates: 1, inserts: 2 });
    jest.restoreAllMocks();

    // With a key it is a savepoint of the keyed write's transaction: the keyed write runs the operation again.
    inserts = deadlockOnce();
    creates = jest.spyOn(LeadService.prototype, 'create');
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'deadlock.keyed@example.com' }] });
    const res = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(res.status).toBe(201);
    expect({ creates: creates.mock.calls.length, inserts: inserts.mock.calls.length }).toEqual({ creates: 2, inserts: 2 });
    expect(await stored('deadlock.keyed@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
    const again = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ replayed: again.headers['idempotent-replayed'], text: again.text }).toEqual({ replayed: 'true', text: res.text });
  });

  test('a write that loses every attempt is 503 and not stored; the same key later runs it', async () => {
    jest.spyOn(LeadRepository.prototype, 'insert').mockRejectedValue(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'deadlock.always@example.com' }] });
    const lost = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(lost.status).toBe(503);
    expect(lost.headers['retry-after']).toBeDefined();
    jest.restoreAllMocks();
    const later = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: later.status, replayed: later.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
  });

  test('PATCH and DELETE replay their first answer, even after the lead changed or went', async () => {
    const lead = await createLead(t, r.users.companyAdmin.key);
    const patchKey = newKey();
    const patch = { lead: { status: 'Contacted' } };
    const patched = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: patch, headers: withKey(patchKey) });
    expect(patched.status).toBe(200);
    await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: { lead: { status: 'Won' } } });
    const replayed = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, body: patch, headers: withKey(patchKey) });
    expect({ status: replayed.status, replayed: replayed.headers['idempotent-replayed'], text: replayed.text }).toEqual({ status: 200, replayed: 'true', text: patched.text });
    // The second PATCH was the only StatusChange since: the replay wrote nothing.
    const timeline = (await api(t, 'get', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key })).body.lead_activities;
    expect(timeline.filter((a: any) => a.type === 'LeadActivity::StatusChange')).toHaveLength(2);

    const deleteKey = newKey();
    expect((await api(t, 'delete', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, headers: withKey(deleteKey) })).status).toBe(204);
    const again = await api(t, 'delete', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key, headers: withKey(deleteKey) });
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'] }).toEqual({ status: 204, replayed: 'true' });
    expect((await api(t, 'delete', `/v1/leads/${lead.id}`, { key: r.users.companyAdmin.key })).status).toBe(404);
  });

  test('every write of every resource takes the key (a product create, a company retailer update)', async () => {
    const key = newKey();
    const body = { product: { sku: `IDEM-${n}`, name: 'Idempotent anvil', company_id: r.net.company.id } };
    const first = await api(t, 'post', '/v1/products', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(first.status).toBe(201);
    const again = await api(t, 'post', '/v1/products', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'], id: again.body.id }).toEqual({ status: 201, replayed: 'true', id: first.body.id });
    // Without the key the same body is a second create: the SKU is taken.
    expect((await api(t, 'post', '/v1/products', { key: r.users.companyAdmin.key, body })).status).toBe(422);

    const crKey = newKey();
    const update = { company_retailer: { name: 'Renamed once' } };
    const path = `/v1/company_retailers/${r.net.companyRetailer.id}`;
    const updated = await api(t, 'patch', path, { key: r.users.companyAdmin.key, body: update, headers: withKey(crKey) });
    expect(updated.status).toBe(200);
    const replay = await api(t, 'patch', path, { key: r.users.companyAdmin.key, body: update, headers: withKey(crKey) });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  test('POST /v1/leads/batch with a key: the whole answer is replayed, the leads written once', async () => {
    const key = newKey();
    const body = { leads: [quoteRequest({ emails: [{ email: 'batch.idem.1@example.com' }] }).lead, quoteRequest({ name: ' ' }).lead] };
    const first = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect(first.status).toBe(200);
    expect(first.body.results.map((x: any) => x.status)).toEqual([201, 422]);
    const again = await api(t, 'post', '/v1/leads/batch', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: again.status, replayed: again.headers['idempotent-replayed'], text: again.text }).toEqual({ status: 200, replayed: 'true', text: first.text });
    expect(await stored('batch.idem.1@example.com')).toEqual({ leads: 1, activities: ['LeadActivity::QuoteRequest'] });
  });
});

describe('the key itself', () => {
  test('longer than 255 characters or blank is 400 with a clear message; 255 is accepted', async () => {
    const long = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest(), headers: withKey('k'.repeat(256)) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ status: 400, error: 'Bad Request', message: 'Idempotency-Key must be at most 255 characters (got 256)' });
    const blank = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest(), headers: withKey('  ') });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe('Idempotency-Key must not be blank');
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body: quoteRequest(), headers: withKey('k'.repeat(255)) })).status).toBe(201);
  });

  test('without an API key the request is 401 before the key is looked at; on a GET the key is ignored', async () => {
    expect((await api(t, 'post', '/v1/leads', { body: quoteRequest(), headers: withKey(newKey()) })).status).toBe(401);
    const key = newKey();
    const list = await api(t, 'get', '/v1/leads', { key: r.users.companyAdmin.key, headers: withKey(key) });
    expect(list.status).toBe(200);
    expect(list.headers['idempotent-replayed']).toBeUndefined();
  });

  test('a key is kept 24 hours: an older answer is not replayed, and writes delete expired rows as they go', async () => {
    const key = newKey();
    const body = quoteRequest({ emails: [{ email: 'expired@example.com' }] });
    expect((await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) })).status).toBe(201);
    const em = t.em();
    await em.getConnection().execute(`update idempotency_keys set created_at = now() - interval '25 hours' where key = ?`, [key]);
    await em.getConnection().execute(
      `insert into idempotency_keys (api_key_id, key, fingerprint, status, body, created_at)
       select api_key_id, 'expired-' || g, 'x', 201, '{}', now() - interval '30 hours' from idempotency_keys, generate_series(1, 5) g where key = ?`,
      [key],
    );
    const later = await api(t, 'post', '/v1/leads', { key: r.users.companyAdmin.key, body, headers: withKey(key) });
    expect({ status: later.status, replayed: later.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    const [{ expired }] = await em.getConnection().execute(`select count(*)::int as expired from idempotency_keys where created_at < now() - interval '24 hours'`);
    expect(expired).toBe(0);
    const [{ fresh }] = await em.getConnection().execute(`select count(*)::int as fresh from idempotency_keys where key = ?`, [key]);
    expect(fresh).toBe(1);
  });
});
