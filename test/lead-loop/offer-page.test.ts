// From the e-mail (docs/lead-loop.md): the assignment mail's link opens a server-rendered page for its
// one lead, signed for its one recipient, with Accept and Decline (POST, CSRF-safe, idempotent) acting as
// that user through the offers service; the store that loses a lead is mailed. Over HTTP against a
// listening server, with a real SMTP receiver; the Chromium test clicks Accept in a real browser.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, withGeocoder } from '../support/leads';
import { locatorNetwork, north, store } from '../support/locator-factories';
import { launchChromium } from '../support/browser';
import { Role } from '../../src/modules/user/role';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { offerFormSecret, offerLinkToken } from '../../src/modules/notifications/offer-link.token';
import { startSmtpReceiver } from '../notifications/smtp-receiver';

const SECRET = 'p'.repeat(40);
const MILE = 1609.344;
const ORIGIN = { latitude: 45, longitude: -100 };

let t: TestApp;
let server: Server;
let base: string;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let worker: NotificationWorker;
let now = new Date();
const clock = () => now;
/** Every status the page answered in this suite: none may be a 5xx. */
const statuses: number[] = [];

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  t = await createTestApp({ SMTP_URL: smtp.url, NOTIFICATION_WORKER: 'false', NOTIFICATION_SECRET: SECRET, GEOCODER: 'none', SMTP_TIMEOUT_MS: '4000' });
  withGeocoder({ geocode: async () => ORIGIN });
  server = t.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The links' base URL and the origin the forms must come from: the listening server's (PUBLIC_URL).
  t.config.notifications.publicUrl = base;
  t.config.notifications.leadUrl = `${base}/v1/leads/{id}`;
  worker = new NotificationWorker(t.orm, t.config, { clock });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await worker.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
  await smtp.close();
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
});
beforeEach(async () => {
  now = new Date();
  await worker.drain();
  smtp.received.length = 0;
});

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

/** A brand routing by nearest store (hand-overs go to the nearest store the lead never had). */
async function brand() {
  const net = await locatorNetwork(em());
  const admin = (await f.userWithKey(em(), Role.CompanyAdmin, net.company)).key;
  const res = await gql(t, admin, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', {
    input: { enabled: false, strategies: ['Nearest'], nearestMaxDistanceMiles: 500 },
  });
  expect(res.body.errors).toBeUndefined();
  return { ...net, admin };
}
type Brand = Awaited<ReturnType<typeof brand>>;

/** A store `miles` north of the leads with `users` location users. */
async function storeAt(b: Brand, miles: number, users = 1) {
  const crl = await store(em(), b.companyRetailer, { ...north(ORIGIN, miles * MILE), name: `Store ${miles} mi` });
  const staff = [];
  for (let i = 0; i < users; i++) staff.push(await f.userWithKey(em(), Role.CompanyLocationUser, b.company, { companyRetailerLocations: [crl] }));
  return { id: crl.id, name: `Store ${miles} mi`, staff };
}

const at = { street_line_one: '1 Main St', city: 'Springfield', postal_code: '97205', country: 'US' };
async function leadAt(b: Brand, storeId: string, name = 'Jeanne Dupont') {
  const body = quoteRequest({ name, assignee_id: storeId, location: at });
  (body.lead.lead_activities[0] as any).data.notes = 'Need <b>two</b> anvils by Friday';
  return createLead(t, b.admin, body);
}

/** The page link of the latest mail to `email`. */
function linkIn(email: string): string {
  const mails = smtp.to(email);
  expect(mails.length).toBeGreaterThan(0);
  const m = /(https?:\/\/\S+\/leads\/offer\/[^\s<>"]+)/.exec(mails[mails.length - 1].mail.text!);
  expect(m).not.toBeNull();
  return m![1];
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers, redirect: 'manual' });
  statuses.push(res.status);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

/** The form secret of a page. */
const formOf = (html: string) => /name="form" value="([^"]+)"/.exec(html)?.[1];

async function post(url: string, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams(Object.entries(fields).filter(([, v]) => v !== undefined) as Array<[string, string]>);
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, redirect: 'manual' });
  statuses.push(res.status);
  return { status: res.status, html: await res.text() };
}

const offers = (leadId: string) =>
  sql(`select store_id, state, answered_by_id, decline_reason from lead_offers where lead_id = ? order by offered_at, answered_at nulls last`, [leadId]);
const assigneeOf = async (leadId: string) => (await sql(`select assignee_id from leads where id = ?`, [leadId]))[0].assignee_id;
const stateOf = (html: string) => /data-state="(\w+)"/.exec(html)?.[1];

describe('the page a lead mail links', () => {
  test("the assignment mail's link opens the page; Accept accepts as the mail's recipient; again shows accepted", async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const [user] = a.staff;
    const lead = await leadAt(b, a.id);
    await worker.drain();
    const link = linkIn(user.user.email);
    expect(link.startsWith(`${base}/leads/offer/o1.${lead.id}.`)).toBe(true);
    expect(smtp.to(user.user.email)[0].mail.text).not.toContain('/v1/leads/');

    const page = await get(link);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.html).not.toContain('<script');
    expect(page.html).toContain('Jeanne Dupont');
    expect(page.html).toContain('Need &#60;b&#62;two&#60;/b&#62; anvils by Friday');
    expect(page.html).toContain(a.name);
    expect(stateOf(page.html)).toBe('open');
    expect(page.html).toContain('>Accept</button>');
    expect(page.html).toContain('value="too_far"');

    const form = formOf(page.html)!;
    const accepted = await post(link, { form, action: 'accept' });
    expect(accepted.status).toBe(200);
    expect(stateOf(accepted.html)).toBe('accepted');
    expect(await offers(lead.id)).toMatchObject([{ store_id: a.id, state: 'accepted', answered_by_id: user.user.id }]);

    // Idempotent: the same answer again, and the page later, show accepted; declining now is a conflict.
    expect(stateOf((await post(link, { form, action: 'accept' })).html)).toBe('accepted');
    const again = await get(link);
    expect([again.status, stateOf(again.html)]).toEqual([200, 'accepted']);
    expect(again.html).not.toContain('<form');
    const late = await post(link, { form, action: 'decline', reason: 'too_far' });
    expect([late.status, stateOf(late.html)]).toEqual([409, 'accepted']);
    const [{ n }] = await sql(`select count(*)::int as n from lead_events where lead_id = ? and type = 'lead.accepted'`, [lead.id]);
    expect(n).toBe(1);

    // Moved on by the admin after it was accepted: the link still says accepted, without the lead.
    const c = await storeAt(b, 2);
    expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: b.admin, body: { lead: { assignee_id: c.id } } })).status).toBe(200);
    const after = await get(link);
    expect([after.status, stateOf(after.html)]).toEqual([200, 'accepted']);
    expect(after.html).not.toContain('Jeanne');
  });

  test('in French for a French-speaking recipient', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    await sql(`update users set locale = 'fr' where id = ?`, [a.staff[0].user.id]);
    await leadAt(b, a.id);
    await worker.drain();
    const page = await get(linkIn(a.staff[0].user.email));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="fr">');
    expect(page.html).toContain('>Accepter</button>');
    expect(page.html).toContain('Le client est trop loin');
  });

  test('Decline with a reason hands the lead over; the losing store is mailed, never the user who declined', async () => {
    const b = await brand();
    const a = await storeAt(b, 1, 2);
    const c = await storeAt(b, 2);
    const [decliner, colleague] = a.staff;
    const lead = await leadAt(b, a.id);
    await worker.drain();
    const link = linkIn(decliner.user.email);
    const colleagueLink = linkIn(colleague.user.email);
    expect(colleagueLink).not.toBe(link);
    const form = formOf((await get(link)).html)!;

    // `other` needs a note: the form again with the error, nothing changed.
    const bad = await post(link, { form, action: 'decline', reason: 'other', note: '' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('role="alert"');
    expect(bad.html).toContain('<option value="other" selected>');
    expect(await assigneeOf(lead.id)).toBe(a.id);

    const declined = await post(link, { form, action: 'decline', reason: 'too_far', note: 'We are closing for a week' });
    expect(declined.status).toBe(200);
    expect(stateOf(declined.html)).toBe('declined');
    expect(declined.html).not.toContain('Jeanne Dupont');
    expect(await assigneeOf(lead.id)).toBe(c.id);
    expect(await offers(lead.id)).toMatchObject([
      { store_id: a.id, state: 'declined', answered_by_id: decliner.user.id, decline_reason: 'too_far' },
      { store_id: c.id, state: 'open' },
    ]);
    // Posting the decline again is fine; accepting it now is not.
    expect((await post(link, { form, action: 'decline', reason: 'too_far' })).status).toBe(200);
    expect((await post(link, { form, action: 'accept' })).status).toBe(409);

    smtp.received.length = 0;
    await worker.drain();
    // The new store hears of it; the colleague who was mailed the offer is told it went elsewhere; the decliner is not.
    expect(smtp.to(c.staff[0].user.email)).toHaveLength(1);
    expect(smtp.to(decliner.user.email)).toHaveLength(0);
    const [lost] = smtp.to(colleague.user.email);
    expect(lost.mail.subject).toBe('Lead passed to another store: Jeanne Dupont');
    expect(lost.mail.text).toContain('This lead was passed to another store');
    expect(lost.mail.text).toContain(a.name);
    expect(lost.mail.text).toContain('Your store declined it.');
    expect(lost.mail.text).not.toContain(c.name);
    expect(lost.mail.text).not.toContain(lead.emails[0].email);
    expect((lost.mail.headerLines as unknown as Array<{ key: string }>).some((h) => h.key === 'list-unsubscribe')).toBe(true);
    const log = await sql(
      `select l.status from notification_delivery_log l join notification_deliveries d on d.id = l.delivery_id where d.lead_id = ? and d.kind = 'lead_lost' order by l.id`,
      [lead.id],
    );
    expect(log.map((r: any) => r.status)).toEqual(['queued', 'sent']);

    // The colleague's link now says declined; the new store's link offers it.
    const theirs = await get(colleagueLink);
    expect([theirs.status, stateOf(theirs.html)]).toEqual([200, 'declined']);
    const next = await get(linkIn(c.staff[0].user.email));
    expect([next.status, stateOf(next.html)]).toEqual([200, 'open']);
  });

  test('a reassignment tells the losing store too; a user who turned lead mails off is not told', async () => {
    const b = await brand();
    const a = await storeAt(b, 1, 2);
    const c = await storeAt(b, 2);
    const lead = await leadAt(b, a.id);
    await worker.drain();
    await sql(`insert into notification_preferences (user_id, lead_assigned) values (?, 'off')`, [a.staff[1].user.id]);
    smtp.received.length = 0;
    expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: b.admin, body: { lead: { assignee_id: c.id } } })).status).toBe(200);
    await worker.drain();
    const [lost] = smtp.to(a.staff[0].user.email);
    expect(lost.mail.text).toContain('It was reassigned.');
    expect(smtp.to(a.staff[1].user.email)).toHaveLength(0);
    expect(smtp.to(c.staff[0].user.email)).toHaveLength(1);
  });

  test("a manager's link (a breach mail's) shows the lead without the forms; the page's POST is refused", async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a.id);
    const manager = await f.userWithKey(em(), Role.CompanyAdmin, b.company);
    const [{ id: offerId }] = await sql(`select id from lead_offers where lead_id = ?`, [lead.id]);
    const url = `${base}/leads/offer/${offerLinkToken(SECRET, { leadId: lead.id, offerId, userId: manager.user.id }, now)}`;
    const page = await get(url);
    expect([page.status, stateOf(page.html)]).toEqual([200, 'open']);
    expect(page.html).toContain('Jeanne Dupont');
    expect(page.html).not.toContain('<form');
    expect(page.html).toContain('has not answered yet');
    // A form secret for this link exists only server-side; even with it, the manager does not answer for the store.
    const token = decodeURIComponent(url.split('/leads/offer/')[1]);
    const posted = await post(url, { form: offerFormSecret(SECRET, token), action: 'accept' });
    expect([posted.status, stateOf(posted.html)]).toEqual([200, 'open']);
    expect(await offers(lead.id)).toMatchObject([{ state: 'open' }]);
    // A body too large is a page, not a JSON error.
    const big = await post(url, { form: 'x', action: 'accept', note: 'n'.repeat(20_000) });
    expect(big.status).toBe(400);
    expect(big.html).toContain('<h1>');
  });
});

describe('links that do not work', () => {
  test('forged, tampered, garbled and expired tokens: a clear 4xx page, nothing changed, no lead shown', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a.id);
    await worker.drain();
    const link = linkIn(a.staff[0].user.email);
    const token = decodeURIComponent(link.split('/leads/offer/')[1]);
    const [, , offerId, userId] = token.split('.');
    const other = await leadAt(b, a.id, 'Someone Else');
    const ids = { leadId: lead.id, offerId, userId };

    const cases: Array<[string, number]> = [
      [offerLinkToken('q'.repeat(40), ids, now), 400], // another secret
      [token.replace(lead.id, other.id), 400], // another lead under this signature
      [token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'), 400], // an altered signature
      [token.split('.').slice(0, 5).join('.'), 400], // no signature
      ['garbage', 400],
      ['o1.' + 'x'.repeat(5000), 400],
      [offerLinkToken(SECRET, ids, new Date(now.getTime() - 15 * 86_400_000)), 410], // 15 days old
      [offerLinkToken(SECRET, { ...ids, leadId: other.id }, now), 404], // this offer is not that lead's
    ];
    for (const [bad, status] of cases) {
      const url = `${base}/leads/offer/${encodeURIComponent(bad)}`;
      const page = await get(url);
      expect([bad.slice(0, 20), page.status]).toEqual([bad.slice(0, 20), status]);
      expect(page.html).toContain('<h1>');
      expect(page.html).not.toContain('Jeanne');
      expect(page.html).not.toContain('Someone Else');
      const posted = await post(url, { form: formOf((await get(link)).html), action: 'accept' });
      expect(posted.status).toBe(status);
    }
    expect(await offers(lead.id)).toMatchObject([{ state: 'open' }]);
    // Fourteen days less a minute: still fine.
    expect((await get(`${base}/leads/offer/${offerLinkToken(SECRET, ids, new Date(now.getTime() - 14 * 86_400_000 + 60_000))}`)).status).toBe(200);
  });

  test('replayed: the lead moved to another store, or the user left the store: 410 / 403, no lead shown, nothing answered', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const c = await storeAt(b, 2);
    const lead = await leadAt(b, a.id);
    await worker.drain();
    const link = linkIn(a.staff[0].user.email);
    const form = formOf((await get(link)).html)!;
    expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: b.admin, body: { lead: { assignee_id: c.id } } })).status).toBe(200);
    const moved = await get(link);
    expect(moved.status).toBe(410);
    expect(moved.html).not.toContain('Jeanne');
    expect((await post(link, { form, action: 'accept' })).status).toBe(410);
    expect(await offers(lead.id)).toMatchObject([{ store_id: a.id, state: 'withdrawn' }, { store_id: c.id, state: 'open' }]);

    // A user removed from the store the lead is offered to.
    const lead2 = await leadAt(b, c.id, 'Second Shopper');
    await worker.drain();
    const link2 = linkIn(c.staff[0].user.email);
    const form2 = formOf((await get(link2)).html)!;
    await sql(`delete from user_company_retailer_locations where user_id = ?`, [c.staff[0].user.id]);
    const gone = await get(link2);
    expect(gone.status).toBe(403);
    expect(gone.html).toContain('no longer available');
    expect(gone.html).not.toContain('Second Shopper');
    expect((await post(link2, { form: form2, action: 'accept' })).status).toBe(403);
    expect(await offers(lead2.id)).toMatchObject([{ store_id: c.id, state: 'open' }]);
  });

  test('CSRF: without the form secret, with another link\'s, from a foreign origin or referer: 403 and nothing answered', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a.id);
    const otherLead = await leadAt(b, a.id, 'Other Shopper');
    await worker.drain();
    const links = smtp.to(a.staff[0].user.email).map((m) => /(https?:\/\/\S+\/leads\/offer\/[^\s<>"]+)/.exec(m.mail.text!)![1]);
    const link = links.find((l) => l.includes(lead.id))!;
    const foreign = formOf((await get(links.find((l) => l.includes(otherLead.id))!)).html)!;
    const form = formOf((await get(link)).html)!;
    expect(foreign).not.toBe(form);

    expect((await post(link, { action: 'accept' })).status).toBe(403);
    expect((await post(link, { form: foreign, action: 'accept' })).status).toBe(403);
    expect((await post(link, { form: form.slice(0, -1), action: 'accept' })).status).toBe(403);
    expect((await post(link, { form, action: 'accept' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(link, { form, action: 'accept' }, { origin: 'null' })).status).toBe(403);
    expect((await post(link, { form, action: 'accept' }, { referer: 'https://evil.example/page' })).status).toBe(403);
    expect((await post(link, { form, action: 'nothing' })).status).toBe(400);
    expect(await offers(lead.id)).toMatchObject([{ state: 'open' }]);
    const ok = await post(link, { form, action: 'accept' }, { origin: base, referer: link });
    expect([ok.status, stateOf(ok.html)]).toEqual([200, 'accepted']);
  });

  test('double POST: many accepts at once, one answer, every page says accepted; accept and decline at once: one wins, the other 409', async () => {
    const b = await brand();
    const a = await storeAt(b, 1, 2);
    await storeAt(b, 2);
    const lead = await leadAt(b, a.id);
    await worker.drain();
    const link = linkIn(a.staff[0].user.email);
    const form = formOf((await get(link)).html)!;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(link, { form, action: 'accept' })));
    expect(answers.map((r) => [r.status, stateOf(r.html)])).toEqual(Array.from({ length: 6 }, () => [200, 'accepted']));
    const [{ n }] = await sql(`select count(*)::int as n from lead_events where lead_id = ? and type = 'lead.accepted'`, [lead.id]);
    expect(n).toBe(1);

    const lead2 = await leadAt(b, a.id, 'Race Shopper');
    await worker.drain();
    const mine = smtp.to(a.staff[0].user.email).map((m) => /(https?:\/\/\S+\/leads\/offer\/[^\s<>"]+)/.exec(m.mail.text!)![1]).find((l) => l.includes(lead2.id))!;
    const theirs = smtp.to(a.staff[1].user.email).map((m) => /(https?:\/\/\S+\/leads\/offer\/[^\s<>"]+)/.exec(m.mail.text!)![1]).find((l) => l.includes(lead2.id))!;
    const [f1, f2] = [formOf((await get(mine)).html)!, formOf((await get(theirs)).html)!];
    const race = await Promise.all([post(mine, { form: f1, action: 'accept' }), post(theirs, { form: f2, action: 'decline', reason: 'no_capacity' })]);
    expect(race.map((r) => r.status).sort()).toEqual([200, 409]);
    const [offer] = await offers(lead2.id);
    expect(['accepted', 'declined']).toContain(offer.state);
  });
});

describe('in a browser', () => {
  test('Chromium opens the mail link and clicks Accept: the page says accepted', async () => {
    const b = await brand();
    const a = await storeAt(b, 1);
    const lead = await leadAt(b, a.id, 'Browser Shopper');
    await worker.drain();
    const link = linkIn(a.staff[0].user.email);
    const chromium = await launchChromium();
    try {
      const page = await chromium.browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      const first = await page.goto(link, { waitUntil: 'load' });
      expect(first?.status()).toBe(200);
      expect(await page.$eval('h1', (h) => h.textContent)).toContain('Browser Shopper');
      const [answer] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('#accept button')]);
      expect(answer?.status()).toBe(200);
      expect(await page.$eval('#state', (s) => s.getAttribute('data-state'))).toBe('accepted');
      expect(violations).toEqual([]);
    } finally {
      await chromium.close();
    }
    expect(await offers(lead.id)).toMatchObject([{ state: 'accepted', answered_by_id: a.staff[0].user.id }]);
  }, 60_000);
});
