// The proof of an erasure (docs/personal-data.md "Erasure"): a person with distinctive strings reaches the
// database through every path a test can take (a REST create with an Idempotency-Key, a merge, a lead
// sharing the phone, an activity, the store contact form with its consent and confirmation mail, a lead
// import (`importLeads`, a row with a consent that merges into the person's lead), a
// webhook delivery to a real HTTP receiver, an assignment mail to a real SMTP receiver, a declined
// offer's note, an outcome's reason); the company admin erases them; then the whole database is dumped
// and none of the strings is in it (with a search engine cluster, SEARCH_CLUSTER, every document of every
// index of the run too). Partners hear `lead.erased` with ids only; counts and outcomes stay.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { world, type World } from '../support/network';
import { Role } from '../../src/modules/user/role';
import { buildSchema } from '../../src/graphql/schema';
import { createSearchBackend } from '../../src/search/factory';
import { createGeocoder } from '../../src/geo/factory';
import { createWebhookWorker, type WebhookWorker } from '../../src/modules/webhooks/webhook.worker';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { VisitorConfirmationWorker } from '../../src/modules/site-keys/visitor-confirmation.worker';
import { modules } from '../../src/modules';
import { startReceiver } from '../webhooks/receiver';
import { startSmtpReceiver } from '../notifications/smtp-receiver';
import { dumpDatabase } from '../support/pg-dump';
import { engineUnderTest } from '../support/search-engine';
import { searchEngineClient } from '../../src/search/factory';

const { solveChallenge } = require('altcha-lib') as typeof import('altcha-lib', { with: { 'resolution-mode': 'import' } });
const { deriveKey } = require('altcha-lib/algorithms/pbkdf2') as typeof import('altcha-lib/algorithms/pbkdf2', { with: { 'resolution-mode': 'import' } });

const ORIGIN = 'https://shop.example.com';
const NAME = 'Xylbertine Quaxfordine';
const EMAIL = 'xylbertine.quaxfordine@erasure-proof.example';
const EMAIL_2 = 'z.quaxfordine.second@erasure-proof.example';
const PHONE = '+33 6 12 98 76 54';
const STREET = '77 Rue des Zinniaperdus';
/** What must not be anywhere after the erasure (the dump is searched lower-cased). */
const NEEDLES = ['quaxfordine', 'xylbertine', 'erasure-proof', '612987654', '6 12 98 76 54', 'zinniaperdus', 'marmalade-sofa', 'ptarmigan', 'quillwhistle'];

const engine = engineUnderTest();
const INDEX_PREFIX = `leadnet_proof_${process.pid}_`;

let t: TestApp;
let w: World;
let webhooks: WebhookWorker;
let mails: NotificationWorker;
let confirmations: VisitorConfirmationWorker;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

function webhookWorker(orm: MikroORM): WebhookWorker {
  return createWebhookWorker(orm, { orm, config: t.config, search: createSearchBackend(t.config, orm), geocoder: createGeocoder(t.config, orm) }, buildSchema(modules));
}

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  receiver = await startReceiver();
  t = await createTestApp({
    GEOCODER: 'none',
    TRUST_PROXY: 'true',
    WEBHOOK_WORKER: 'false',
    WEBHOOK_SECRET_KEY: 'k'.repeat(40),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ALTCHA_HMAC_KEY: 'test-altcha-key-0123456789-0123456789',
    ALTCHA_COST: '5',
    ALTCHA_MAX_COUNTER: '100',
    SMTP_URL: smtp.url,
    NOTIFICATION_WORKER: 'false',
    NOTIFICATION_SECRET: 'n'.repeat(40),
    PUBLIC_URL: 'https://leadnet.example',
    ...(engine ? { SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url, ELASTICSEARCH_INDEX_PREFIX: INDEX_PREFIX } : {}),
  });
  w = await world(em());
  webhooks = webhookWorker(t.orm);
  mails = new NotificationWorker(t.orm, t.config);
  confirmations = new VisitorConfirmationWorker(t.orm, t.config);
});
afterAll(async () => {
  if (engine && t) await searchEngineClient(t.config).indices.delete({ index: `${INDEX_PREFIX}*`, ignore_unavailable: true });
  await mails.stop();
  await t.close();
  await receiver.close();
  await smtp.close();
});

/** Every document of every index of this run (a search engine's), as one lower-cased text. */
async function engineDump(): Promise<string> {
  const client = searchEngineClient(t.config);
  await client.indices.refresh({ index: `${INDEX_PREFIX}*`, ignore_unavailable: true, allow_no_indices: true });
  const res = await client.search({ index: `${INDEX_PREFIX}*`, size: 10_000, query: { match_all: {} } });
  return JSON.stringify(res.hits.hits.map((h) => h._source)).toLowerCase();
}

async function ok(res: { body: any }, field: string) {
  expect(res.body.errors).toBeUndefined();
  return res.body.data[field];
}

async function contactForm(storeId: string, siteKey: string, body: Record<string, unknown>) {
  const c = await api(t, 'get', `/v1/store_locator/challenge?site_key=${encodeURIComponent(siteKey)}`, { headers: { Origin: ORIGIN, 'X-Forwarded-For': '10.9.0.1' } });
  expect(c.status).toBe(200);
  const solution = await solveChallenge({ challenge: c.body, deriveKey });
  const altcha = Buffer.from(JSON.stringify({ challenge: c.body, solution })).toString('base64');
  return api(t, 'post', `/v1/store_locator/${storeId}/leads`, { body: { site_key: siteKey, altcha, ...body }, headers: { Origin: ORIGIN, 'X-Forwarded-For': '10.9.0.2' } });
}

test('after an erasure, none of the person\'s strings is anywhere in the database', async () => {
  const admin = w.keys[Role.CompanyAdmin];
  // A partner listens to every event, erasures included.
  const endpoint = await ok(
    await gql(t, admin, 'mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { endpoint { id } } }', {
      input: { url: receiver.url('/crm'), events: ['LeadCreated', 'LeadUpdated', 'LeadAssigned', 'LeadMerged', 'LeadActivityCreated', 'LeadDeclined', 'LeadOutcomeRecorded', 'LeadErased'] },
    }),
    'createWebhookEndpoint',
  );
  expect(endpoint.endpoint.id).toBeDefined();
  const siteKey = (await ok(await gql(t, admin, 'mutation { createSiteKey(input: {name: "Shop", allowedOrigins: ["https://shop.example.com"]}) { key } }'), 'createSiteKey')).key;

  // A bystander of the same company, who must stay as they are.
  const bystander = await api(t, 'post', '/v1/leads', { key: admin, body: { lead: { name: 'Bystander Plumtree', emails: [{ email: 'plumtree@bystander.example' }] } } });
  expect(bystander.status).toBe(201);

  // 1. A REST create (its answer stored under an Idempotency-Key), assigned to a store whose staff are mailed.
  const created = await api(t, 'post', '/v1/leads', {
    key: admin,
    headers: { 'Idempotency-Key': 'erasure-proof-1' },
    body: {
      lead: {
        name: NAME,
        emails: [{ email: EMAIL }],
        phone_numbers: [{ phone_number: PHONE, country_code: 'FR' }],
        location: { street_line_one: STREET, city: 'Lyon', postal_code: '69003', country: 'FR' },
        assignee_id: w.crlIn.id,
        lead_activities: [{ type: 'LeadActivity::Note', data: { notes: 'Xylbertine asked about the marmalade-sofa' } }],
      },
    },
  });
  expect(created.status).toBe(201);
  const leadId = created.body.id as string;
  // 2. A merge: the same e-mail again, with a note.
  const merged = await api(t, 'post', '/v1/leads', { key: admin, body: { lead: { name: 'Xylbertine Q.', emails: [{ email: EMAIL.toUpperCase() }], lead_activities: [{ type: 'LeadActivity::Note', data: { notes: 'Quaxfordine called back' } }] } } });
  expect(merged.status).toBe(201);
  expect(merged.body.id).toBe(leadId);
  // 3. Another lead of the person's, sharing the phone only (added by an update: no merge).
  const second = await api(t, 'post', '/v1/leads', { key: admin, body: { lead: { name: 'Z. Quaxfordine', emails: [{ email: EMAIL_2 }] } } });
  expect(second.status).toBe(201);
  const patched = await api(t, 'patch', `/v1/leads/${second.body.id}`, { key: admin, body: { lead: { phone_numbers: [{ phone_number: PHONE, country_code: 'FR' }] } } });
  expect(patched.status).toBe(200);
  // 4. An activity.
  const activity = await api(t, 'post', '/v1/lead_activities', { key: admin, body: { lead_activity: { lead_id: leadId, type: 'LeadActivity::InboundCall', data: { summary: 'Xylbertine Quaxfordine, ptarmigan street' } } } });
  expect(activity.status).toBe(201);
  // 5. The store contact form: a merge with a consent and a confirmation mail to the visitor.
  const form = await contactForm(w.crlIn.id, siteKey, {
    name: NAME,
    email: EMAIL,
    message: 'Quaxfordine here, about the marmalade-sofa',
    consent: { given: true, text: 'I agree that the store contacts me about my request.', version: '2026-12' },
    website: '',
  });
  expect(form.status).toBe(202);
  expect(await confirmations.tick()).toBe(1);
  await smtp.waitFor(() => smtp.received.some((m) => m.to.includes(EMAIL)));
  // 5b. A lead import: a row of the person's (merging into their lead by the e-mail) with a note and a consent.
  const imported = await ok(
    await gql(t, admin, 'mutation($c: ID!, $csv: String!) { importLeads(companyId: $c, csv: $csv) { created updated invalid } }', {
      c: w.A.id,
      csv: `name,email,phone,street_line_one,city,country,message,consent_text,consent_version\n"${NAME}",${EMAIL},${PHONE},"${STREET} bis",Lyon,FR,Quaxfordine asked for the quillwhistle catalogue,We may contact you about your request.,import-1\n`,
    }),
    'importLeads',
  );
  expect(imported).toEqual({ created: 0, updated: 1, invalid: 0 });
  // 6. The store declines with a note; the lead goes on; its outcome is recorded with a reason.
  const declined = await gql(t, w.keys[Role.CompanyLocationUser], `mutation { declineLead(id: "${leadId}", reason: OTHER, note: "Xylbertine lives too far") { id } }`);
  const outcome = await gql(t, admin, `mutation { recordLeadOutcome(id: "${leadId}", input: {result: LOST, lostReason: "Quaxfordine bought elsewhere"}) { id } }`);
  // 7. Webhooks delivered (the payloads hold the person), mails sent to the store's staff.
  await webhooks.drain();
  await mails.drain();
  expect(receiver.received.some((r) => r.body.includes('Quaxfordine'))).toBe(true);

  const first = await dumpDatabase(t.config.databaseUrl!);
  // With another PostgreSQL's binaries (.ci/run: Debian's), the dump is that version's own pg_dump.
  if (process.env.LEADNET_TEST_PG_NATIVE) expect(first.method).toBe('pg_dump');
  const before = first.text.toLowerCase();
  for (const needle of ['quaxfordine', 'xylbertine', 'erasure-proof', '612987654', 'zinniaperdus', 'marmalade-sofa', 'ptarmigan', 'quillwhistle']) expect({ needle, found: before.includes(needle) }).toEqual({ needle, found: true });
  if (engine) expect(await engineDump()).toContain('quaxfordine');
  expect(declined.body.errors).toBeUndefined();
  expect(outcome.body.errors).toBeUndefined();
  const counts = async () => (await sql(`select count(*)::int as n from leads where owner_company_id = ?`, [w.A.id]))[0].n;
  const leadsBefore = await counts();

  const erased = await ok(await gql(t, admin, `mutation { erasePersonalData(selector: {email: " ${EMAIL.toUpperCase()} "}) { id status leadCount stepsDone steps } }`), 'erasePersonalData');
  expect(erased).toMatchObject({ status: 'DONE', leadCount: 2 });
  expect(erased.stepsDone).toEqual(erased.steps);

  // Partners hear of it with ids only.
  receiver.received.length = 0;
  await webhooks.drain();
  const heard = receiver.received.filter((r) => r.json?.type === 'lead.erased');
  expect(heard.map((r) => r.json.lead.id).sort()).toEqual([leadId, second.body.id].sort());
  for (const r of heard) expect(r.json.lead).toEqual({ id: r.json.lead.id });
  expect(receiver.received.some((r) => r.body.toLowerCase().includes('quaxfordine'))).toBe(false);
  await mails.drain();

  const dump = await dumpDatabase(t.config.databaseUrl!);
  const text = dump.text.toLowerCase();
  // Where a needle is found, the failure shows its table and surroundings.
  const where = (needle: string) => {
    const i = text.indexOf(needle);
    return i < 0 ? null : `${text.slice(text.lastIndexOf('\n-- ', i), text.indexOf('\n', text.lastIndexOf('\n-- ', i) + 1))} ... ${text.slice(Math.max(0, i - 300), i + 100)}`;
  };
  for (const needle of NEEDLES) expect({ needle, method: dump.method, found: where(needle) }).toEqual({ needle, method: dump.method, found: null });
  if (engine) {
    // The indexer writes the anonymous documents over the old ones in the background.
    let docs = await engineDump();
    for (let i = 0; i < 20 && NEEDLES.some((n) => docs.includes(n)); i++) {
      await new Promise((r) => setTimeout(r, 500));
      docs = await engineDump();
    }
    for (const needle of NEEDLES) expect({ needle, engine: engine.backend, found: docs.includes(needle) }).toEqual({ needle, engine: engine.backend, found: false });
    expect(docs).toContain('plumtree');
  }
  // The bystander is intact; the leads, their outcome and routing history stay, anonymous.
  expect(text).toContain('plumtree@bystander.example');
  expect(await counts()).toBe(leadsBefore);
  const [lead] = await sql(`select name, location_id, assignee_id, status from leads where id = ?`, [leadId]);
  expect(lead).toMatchObject({ name: null, location_id: null });
  expect(await sql(`select 1 from emails where lead_id = any(?::uuid[])`, [`{${leadId},${second.body.id}}`])).toHaveLength(0);
  const [decline] = await sql(`select data from lead_activities where lead_id = ? and type = 'LeadActivity::OfferDeclined'`, [leadId]);
  expect(decline.data).toMatchObject({ reason: 'other', store_id: w.crlIn.id });
  expect(decline.data.note).toBeUndefined();
  expect(await sql(`select result, lost_reason from lead_outcomes where lead_id = ?`, [leadId])).toEqual([{ result: 'lost', lost_reason: null }]);
  expect((await sql(`select count(*)::int as n from lead_offers where lead_id = ?`, [leadId]))[0].n).toBeGreaterThan(0);
  const consents = await sql(`select purpose, version, source from lead_consents where lead_id = ? order by source`, [leadId]);
  expect(consents).toEqual([{ purpose: 'contact', version: '2026-12', source: 'form' }, { purpose: 'contact', version: 'import-1', source: 'import' }]);
  // Lists do not find the person any more.
  const listed = await api(t, 'get', `/v1/leads?q=${encodeURIComponent('Quaxfordine')}`, { key: admin });
  expect(listed.status).toBe(200);
  expect(listed.body.leads ?? listed.body).toHaveLength(0);
});
