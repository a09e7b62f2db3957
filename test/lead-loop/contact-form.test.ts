// Visitors ask a store (docs/lead-loop.md): site keys in GraphQL by role; the public challenge and
// contact form over HTTP on a real server: the lead (owned by the store's company, assigned to the store,
// merged on repeat), its consent, the visitor's confirmation mail at a real SMTP receiver; and abuse:
// forged, expired and replayed proofs, wrong or missing origins, revoked and foreign keys, the honeypot,
// oversized bodies, a flood from one IP (429) and from many (each request pays its own proof-of-work),
// and no 5xx over malformed bodies.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { world, type World } from '../support/network';
import * as f from '../support/factories';
import request from 'supertest';
import { Role } from '../../src/modules/user/role';
import { startSmtpReceiver } from '../notifications/smtp-receiver';
import { altchaKeys, newChallenge } from '../../src/modules/site-keys/altcha';
import { VisitorConfirmationWorker } from '../../src/modules/site-keys/visitor-confirmation.worker';

// altcha-lib is an ES module with a CommonJS build (as src/modules/site-keys/altcha.ts reads it).
const { solveChallenge } = require('altcha-lib') as typeof import('altcha-lib', { with: { 'resolution-mode': 'import' } });
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2') as typeof import('altcha-lib/algorithms/pbkdf2', { with: { 'resolution-mode': 'import' } });

const ORIGIN = 'https://shop.example.com';
const OTHER_ORIGIN = 'https://other.example.com';

let t: TestApp;
let w: World;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let mailer: VisitorConfirmationWorker;
let siteKey: string;
let siteKeyId: string;
let foreignKey: string;
let ipSeq = 0;

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);
/** Every request from an address of its own, unless a test floods from one. */
const nextIp = () => `10.0.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await createTestApp({
    GEOCODER: 'none',
    TRUST_PROXY: 'true',
    RATE_LIMIT_STORE_CONTACT: '5',
    ALTCHA_HMAC_KEY: 'test-altcha-key-0123456789-0123456789',
    ALTCHA_COST: '5',
    ALTCHA_MAX_COUNTER: '100',
    SMTP_URL: smtp.url,
    NOTIFICATION_SECRET: 'n'.repeat(40),
  });
  w = await world(em());
  mailer = new VisitorConfirmationWorker(t.orm, t.config);
  const created = await createKey(w.keys[Role.CompanyAdmin], { name: 'Shop', allowedOrigins: [ORIGIN, 'https://www.example.com:8443'] });
  siteKey = created.key;
  siteKeyId = created.id;
  const admin = await gql(t, w.keys[Role.CompanyAdmin], '{ siteKeys { id } }');
  expect(admin.body.data.siteKeys.map((k: { id: string }) => k.id)).toContain(siteKeyId);
  const bAdmin = await f.userWithKey(em(), Role.CompanyAdmin, w.B);
  foreignKey = (await createKey(bAdmin.key, { name: 'Bolt shop', allowedOrigins: [ORIGIN] })).key;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function createKey(apiKey: string, input: Record<string, unknown>) {
  const res = await gql(t, apiKey, 'mutation($input: CreateSiteKeyInput!) { createSiteKey(input: $input) { id key name allowedOrigins companyId revokedAt } }', { input });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.createSiteKey;
}

async function challenge(key = siteKey, origin = ORIGIN) {
  const res = await api(t, 'get', `/v1/store_locator/challenge?site_key=${encodeURIComponent(key)}`, { headers: { Origin: origin, 'X-Forwarded-For': nextIp() } });
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  return res.body;
}

/** The `altcha` widget's payload for a challenge: solved here as the browser solves it. */
async function payloadFor(c: any): Promise<string> {
  const solution = await solveChallenge({ challenge: c, deriveKey });
  return Buffer.from(JSON.stringify({ challenge: c, solution })).toString('base64');
}
const solved = async (key = siteKey) => payloadFor(await challenge(key));

function form(extra: Record<string, unknown> = {}) {
  return {
    site_key: siteKey,
    name: 'Jane Visitor',
    email: `jane${++ipSeq}@example.com`,
    message: 'Do you have the 30-inch model?',
    consent: { given: true, text: 'I agree that the store contacts me about my request.', version: '2026-12' },
    website: '',
    ...extra,
  };
}

async function post(storeId: string, body: unknown, options: { origin?: string | null; ip?: string; raw?: string } = {}) {
  const headers: Record<string, string> = { 'X-Forwarded-For': options.ip ?? nextIp() };
  if (options.origin !== null) headers.Origin = options.origin ?? ORIGIN;
  return api(t, 'post', `/v1/store_locator/${storeId}/leads`, options.raw !== undefined ? { raw: options.raw, headers } : { body, headers });
}

describe('site keys (GraphQL)', () => {
  const list = '{ siteKeys { id key } }';
  it('company admins manage their own keys; the platform operator any company; other roles are refused', async () => {
    for (const role of [Role.CompanyTerritoryManager, Role.CompanyLocationUser, Role.RetailerAdmin, Role.RetailerStoreManager]) {
      const res = await gql(t, w.keys[role], list);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      const create = await gql(t, w.keys[role], 'mutation { createSiteKey(input: {name: "x", allowedOrigins: ["https://a.example"]}) { id } }');
      expect(create.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    const op = await gql(t, w.keys[Role.PlatformOperator], `{ siteKeys(companyId: "${w.A.id}") { id companyId } }`);
    expect(op.body.errors).toBeUndefined();
    expect(op.body.data.siteKeys.map((k: { id: string }) => k.id)).toContain(siteKeyId);
    const opCreate = await createKey(w.keys[Role.PlatformOperator], { companyId: w.A.id, name: 'By the operator', allowedOrigins: ['https://ops.example'] });
    expect(opCreate.companyId).toBe(w.A.id);
    expect(opCreate.key).toMatch(/^pk_[A-Za-z0-9_-]{32}$/);
    // An admin names another company: 403; revokes another company's key: 404.
    const other = await gql(t, w.keys[Role.CompanyAdmin], `mutation { createSiteKey(input: {companyId: "${w.B.id}", name: "x", allowedOrigins: ["https://a.example"]}) { id } }`);
    expect(other.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const [bKey] = await sql(`select id from site_keys where company_id = ?`, [w.B.id]);
    const revokeOther = await gql(t, w.keys[Role.CompanyAdmin], `mutation { revokeSiteKey(id: "${bKey.id}") { id } }`);
    expect(revokeOther.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('origins are exact: scheme, host and an optional port, no path; at most 20', async () => {
    for (const bad of [['https://shop.example.com/path'], ['shop.example.com'], ['ftp://shop.example.com'], ['https://user@shop.example.com'], [], Array.from({ length: 21 }, (_, i) => `https://s${i}.example`)]) {
      const res = await gql(t, w.keys[Role.CompanyAdmin], 'mutation($input: CreateSiteKeyInput!) { createSiteKey(input: $input) { id } }', { input: { name: 'x', allowedOrigins: bad } });
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    const ok = await createKey(w.keys[Role.CompanyAdmin], { name: 'Normalised', allowedOrigins: ['HTTPS://Shop.Example.com:443'] });
    expect(ok.allowedOrigins).toEqual(['https://shop.example.com']);
  });
});

describe('the contact form', () => {
  it('creates a lead owned by the store\'s company, assigned to the store, with its consent and a confirmation mail', async () => {
    const body = form({ altcha: await solved(), locale: 'en' });
    const res = await post(w.crlIn.id, body);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'received' });
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const [lead] = await sql(
      `select l.id, l.owner_company_id, l.assignee_id, l.source_type, l.source_id, l.created_by_id from leads l join emails e on e.lead_id = l.id where e.email = ?`,
      [body.email],
    );
    expect(lead).toMatchObject({ owner_company_id: w.A.id, assignee_id: w.crlIn.id, source_type: 'StoreLocatorForm', source_id: w.crlIn.id, created_by_id: null });
    const [consent] = await sql(`select * from lead_consents where lead_id = ?`, [lead.id]);
    expect(consent).toMatchObject({ purpose: 'contact', source: 'form', text: body.consent.text, version: '2026-12', site_key_id: siteKeyId, withdrawn_at: null });
    const [activity] = await sql(`select type, data from lead_activities where lead_id = ? and type = 'LeadActivity::Note'`, [lead.id]);
    expect(activity.data.message).toBe(body.message);
    expect(await mailer.tick()).toBe(1);
    await smtp.waitFor(() => smtp.received.some((m) => m.to.includes(body.email as string)));
    const mail = smtp.received.find((m) => m.to.includes(body.email as string))!;
    expect(mail.mail.subject).toContain('We received your request');
    expect(mail.mail.text).toContain('Riverside Downtown');
  });

  it('merges a repeat by the duplicate rules, answers it alike, and mails the address at most once an hour', async () => {
    const email = `repeat${Date.now()}@example.com`;
    const product = await f.product(em(), w.A, { name: 'Kayak 30' });
    for (const extra of [{}, { phone: '503 555 0199', product_ids: [product.id] }]) {
      const res = await post(w.crlIn.id, form({ email, altcha: await solved(), ...extra }));
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ status: 'received' });
    }
    const leads = await sql(`select l.id from leads l join emails e on e.lead_id = l.id where e.email = ?`, [email]);
    expect(leads).toHaveLength(1);
    expect(await sql(`select id from lead_consents where lead_id = ?`, [leads[0].id])).toHaveLength(2);
    expect(await sql(`select id from visitor_confirmations where email = ?`, [email])).toHaveLength(1);
    const [quote] = await sql(`select data from lead_activities where lead_id = ? and type = 'LeadActivity::QuoteRequest'`, [leads[0].id]);
    expect(quote.data.products).toEqual([{ id: product.id, name: 'Kayak 30' }]);
  });

  it('writes the confirmation in French when asked', async () => {
    const body = form({ altcha: await solved(), locale: 'fr' });
    expect((await post(w.crlIn.id, body)).status).toBe(202);
    await mailer.tick();
    await smtp.waitFor(() => smtp.received.some((m) => m.to.includes(body.email as string)));
    expect(smtp.received.find((m) => m.to.includes(body.email as string))!.mail.subject).toContain('Nous avons bien reçu votre demande');
  });

  it('routes the lead when the store does not receive leads (routing off: unassigned), still owned by its company', async () => {
    await sql(`update company_retailer_locations set receiving_leads = false where id = ?`, [w.crlSameCr.id]);
    const body = form({ altcha: await solved() });
    expect((await post(w.crlSameCr.id, body)).status).toBe(202);
    const [lead] = await sql(`select l.owner_company_id, l.assignee_id from leads l join emails e on e.lead_id = l.id where e.email = ?`, [body.email]);
    expect(lead).toEqual({ owner_company_id: w.A.id, assignee_id: null });
  });

  it('answers a preflight for a known origin only', async () => {
    const known = await request(t.app).options(`/v1/store_locator/${w.crlIn.id}/leads`).set('Origin', ORIGIN).set('Access-Control-Request-Method', 'POST');
    expect(known.status).toBe(204);
    expect(known.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(known.headers['access-control-allow-methods']).toBe('POST');
    const unknown = await request(t.app).options(`/v1/store_locator/${w.crlIn.id}/leads`).set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'POST');
    expect(unknown.headers['access-control-allow-origin']).toBeUndefined();
    // The locator itself keeps its CORS for every origin.
    const locator = await request(t.app).get(`/v1/store_locator/${w.crlIn.id}`).set('Origin', 'https://evil.example');
    expect(locator.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('abuse', () => {
  const refused = { error: 'refused' };
  const leadCount = async () => Number((await sql(`select count(*)::int as n from leads`))[0].n);

  it('refuses, alike, forged, expired and replayed proofs, wrong or missing origins, revoked and foreign keys, unknown stores', async () => {
    const before = await leadCount();
    const c = await challenge();
    const good = await payloadFor(c);
    // Signed with another key; and ours with its parameters changed after signing.
    const forged = await payloadFor(await newChallenge({ signature: 'f'.repeat(40), keySignature: 'g'.repeat(40) }, t.config, siteKey));
    const goodJson = JSON.parse(Buffer.from(good, 'base64').toString());
    const tampered = Buffer.from(JSON.stringify({ ...goodJson, challenge: { ...goodJson.challenge, parameters: { ...goodJson.challenge.parameters, expiresAt: goodJson.challenge.parameters.expiresAt + 3600 } } })).toString('base64');
    const unsigned = Buffer.from(JSON.stringify({ challenge: { parameters: c.parameters }, solution: { counter: 1, derivedKey: '00' } })).toString('base64');
    const keys = await altchaKeys(em(), t.config);
    const expired = await payloadFor(await newChallenge(keys, t.config, siteKey, Date.now() - 10 * 60_000));
    const otherKeyChallenge = await payloadFor(await newChallenge(keys, t.config, foreignKey));
    const revoked = await createKey(w.keys[Role.CompanyAdmin], { name: 'Soon revoked', allowedOrigins: [ORIGIN] });
    const revokedPayload = await solved(revoked.key);
    const r = await gql(t, w.keys[Role.CompanyAdmin], `mutation { revokeSiteKey(id: "${revoked.id}") { revokedAt } }`);
    expect(r.body.data.revokeSiteKey.revokedAt).toBeTruthy();

    const cases: Array<[string, string, Record<string, unknown>, { origin?: string | null }]> = [
      ['forged challenge', w.crlIn.id, form({ altcha: forged }), {}],
      ['tampered challenge', w.crlIn.id, form({ altcha: tampered }), {}],
      ['unsigned challenge', w.crlIn.id, form({ altcha: unsigned }), {}],
      ['garbage proof', w.crlIn.id, form({ altcha: 'not base64 json' }), {}],
      ['no proof', w.crlIn.id, form(), {}],
      ['expired challenge', w.crlIn.id, form({ altcha: expired }), {}],
      ["another key's challenge", w.crlIn.id, form({ altcha: otherKeyChallenge }), {}],
      ['wrong origin', w.crlIn.id, form({ altcha: await solved() }), { origin: OTHER_ORIGIN }],
      ['no origin', w.crlIn.id, form({ altcha: await solved() }), { origin: null }],
      ['revoked key', w.crlIn.id, form({ site_key: revoked.key, altcha: revokedPayload }), {}],
      ["another company's key", w.crlIn.id, form({ site_key: foreignKey, altcha: await solved(foreignKey) }), {}],
      ['unknown key', w.crlIn.id, form({ site_key: 'pk_' + 'x'.repeat(32), altcha: good }), {}],
      ['unknown store', '7d0c6bb8-0d68-4a63-9b1e-2bbd3f3d2c11', form({ altcha: await solved() }), {}],
      ["another company's store", w.crlB.id, form({ altcha: await solved() }), {}],
      ['a store id that is no id', 'nope', form({ altcha: await solved() }), {}],
    ];
    for (const [name, store, body, options] of cases) {
      const res = await post(store, body, options);
      expect([name, res.status, res.body]).toEqual([name, 403, refused]);
    }
    // The good payload once, then its replay.
    expect((await post(w.crlIn.id, form({ altcha: good }))).status).toBe(202);
    const replay = await post(w.crlIn.id, form({ altcha: good }));
    expect([replay.status, replay.body]).toEqual([403, refused]);
    expect(await leadCount()).toBe(before + 1);
    // A challenge is given only to a working key on one of its origins, refused alike otherwise.
    for (const [key, origin] of [[siteKey, OTHER_ORIGIN], [revoked.key, ORIGIN], ['pk_nope', ORIGIN]]) {
      const res = await api(t, 'get', `/v1/store_locator/challenge?site_key=${encodeURIComponent(key)}`, { headers: { Origin: origin, 'X-Forwarded-For': nextIp() } });
      expect([res.status, res.body]).toEqual([403, refused]);
    }
  });

  it('answers a filled honeypot as a success and stores nothing', async () => {
    const before = await leadCount();
    const res = await post(w.crlIn.id, form({ altcha: await solved(), website: 'http://spam.example' }));
    expect([res.status, res.body]).toEqual([202, { status: 'received' }]);
    expect(await leadCount()).toBe(before);
  });

  it('refuses a body over 16 KB', async () => {
    const res = await post(w.crlIn.id, form({ altcha: await solved(), message: 'x'.repeat(17_000) }));
    expect(res.status).toBe(413);
  });

  it('refuses a list, or a form nested deeply, alike and without a 5xx (the body is walked without recursion)', async () => {
    const deep = (n: number) => `${'['.repeat(n)}"leaf"${']'.repeat(n)}`;
    for (const raw of [deep(5_000), `{"name":${deep(5_000)}}`, '[]']) {
      const res = await post(w.crlIn.id, undefined, { raw });
      expect([res.status, res.body]).toEqual([403, refused]);
    }
  });

  it('limits a flood from one IP', async () => {
    const ip = '192.0.2.77';
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await post(w.crlIn.id, form(), { ip })).status);
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
  });

  it('makes a flood from many IPs pay the proof-of-work: each request needs its own solved, unspent challenge', async () => {
    // 30 addresses (X-Forwarded-For behind the trusted proxy), 4 posts each: under the per-IP limit (5).
    const ips = Array.from({ length: 30 }, (_, i) => `198.51.100.${i + 1}`);
    const before = await leadCount();
    const statuses: number[] = [];
    const send = async (body: Record<string, unknown>, ip: string) => {
      const res = await post(w.crlIn.id, body, { ip });
      statuses.push(res.status);
      return res;
    };
    const paid = await solved();
    expect((await send(form({ altcha: paid }), ips[0])).status).toBe(202);
    const c = await challenge();
    const unsolved = Buffer.from(JSON.stringify({ challenge: c, solution: { counter: 0, derivedKey: '00'.repeat(c.parameters.keyLength) } })).toString('base64');
    let accepted = 1;
    for (const ip of ips) {
      // No solution, a challenge fetched but not solved, and the first address's spent solution: refused alike.
      for (const body of [form(), form({ altcha: unsolved }), form({ altcha: paid })]) {
        const res = await send(body, ip);
        expect([ip, res.status, res.body]).toEqual([ip, 403, refused]);
      }
      // Its own solved challenge: accepted.
      const own = await send(form({ altcha: await solved() }), ip);
      expect([ip, own.status]).toEqual([ip, 202]);
      accepted++;
    }
    // One solved, unspent challenge posted from 20 addresses at once: one lead, the other 19 refused.
    const shared = await solved();
    const race = await Promise.all(Array.from({ length: 20 }, (_, i) => send(form({ altcha: shared }), `203.0.113.${i + 1}`)));
    expect(race.map((r) => r.status).sort()).toEqual([202, ...Array.from({ length: 19 }, () => 403)]);
    accepted++;
    // As many leads as solved challenges; the IP limit never stepped in (no 429); no 5xx.
    expect(await leadCount()).toBe(before + accepted);
    expect(statuses.filter((s) => s === 429 || s >= 500)).toEqual([]);
  });

  it('answers 422 for a bad form once the gate has passed, and never a 5xx over malformed bodies', async () => {
    const invalidForms: Array<Record<string, unknown>> = [
      { name: '' },
      { email: null, phone: null },
      { email: 'not-an-email' },
      { consent: { given: false, text: 'x', version: '1' } },
      { consent: { given: true } },
      { consent: 'yes' },
      { name: 'x'.repeat(201) },
      { product_ids: ['not-a-uuid'] },
      { product_ids: 'all' },
      { phone: '12', email: null },
      { name: ['a'] },
      { message: { $gt: '' } },
      { email: 'a\u0000@b.c' },
    ];
    for (const extra of invalidForms) {
      const res = await post(w.crlIn.id, form({ altcha: await solved(), ...extra }));
      expect([JSON.stringify(extra), res.status]).toEqual([JSON.stringify(extra), 422]);
      expect(res.body.errors).toBeDefined();
    }
    const raw = ['', 'null', '[]', '"text"', '42', '{', '{"site_key": 1}', '{"site_key": null, "altcha": []}', '{"__proto__": {"x": 1}}', JSON.stringify({ site_key: siteKey, altcha: { a: 1 } })];
    for (const text of raw) {
      const res = await post(w.crlIn.id, undefined, { raw: text });
      expect([text, res.status < 500]).toEqual([text, true]);
    }
  });
});
