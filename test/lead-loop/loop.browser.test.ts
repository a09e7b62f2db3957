/**
 * The lead loop end to end (issue 42, "Done when"; docs/lead-loop.md), in a real browser (Debian's
 * headless Chromium) against a listening server, a real SMTP receiver and PostgreSQL: a visitor on a
 * brand's own page asks a store through the finder widget's "Contact this store" form (the ALTCHA
 * proof-of-work solved in the page at the service's default cost, no shortcut) → the store user's
 * assignment mail arrives → its link opens the lead's page in the browser → Accept → the page says
 * accepted → the store records the sale through REST with its own API key → the company admin's
 * `leadFunnel` shows the accepted offer, the won lead and its revenue; the lead's events say the same.
 */
import type { Browser } from 'puppeteer-core';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { launchChromium } from '../support/browser';
import { finderWorld, hostPage, listen, startTileServer } from '../support/finder-world';
import { contactStore, openBrandPage } from '../support/contact-widget';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { VisitorConfirmationWorker } from '../../src/modules/site-keys/visitor-confirmation.worker';
import { startSmtpReceiver } from '../notifications/smtp-receiver';

let t: TestApp;
let world: Awaited<ReturnType<typeof finderWorld>>;
let tiles: Awaited<ReturnType<typeof startTileServer>>;
let service: Awaited<ReturnType<typeof listen>>;
let host: Awaited<ReturnType<typeof listen>>;
let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: Browser;
let notifications: NotificationWorker;
let siteKey = '';
/** Every status the browser got from the service: none may be a 5xx. */
const statuses: Array<[number, string]> = [];

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  tiles = await startTileServer();
  t = await createTestApp({
    LOCATOR_TILE_URL: tiles.template,
    LOCATOR_TILE_ATTRIBUTION: 'Test tiles',
    GEOCODER: 'none',
    SMTP_URL: smtp.url,
    NOTIFICATION_SECRET: 'e'.repeat(40),
    SMTP_TIMEOUT_MS: '4000',
  });
  world = await finderWorld(t.em());
  service = await listen(t.app);
  // The mails' links and the origin the lead page's forms must come from: the listening service.
  t.config.notifications.publicUrl = service.url;
  t.config.notifications.leadUrl = `${service.url}/v1/leads/{id}`;
  notifications = new NotificationWorker(t.orm, t.config);
  host = await listen((_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(hostPage(service.url, `data-company="${world.company.id}" data-site-key="${siteKey}"`));
  });
  chromium = await launchChromium();
  browser = chromium.browser;
});

afterAll(async () => {
  await chromium?.close();
  await notifications?.stop();
  await host?.close();
  await service?.close();
  await tiles?.close();
  await t?.close();
  await smtp?.close();
});

const sql = (text: string, params: unknown[] = []) => t.em().getConnection().execute(text, params as any[]);

const FUNNEL = `query($where: LeadWhere, $groupBy: [LeadFunnelGroup!]) { leadFunnel(where: $where, groupBy: $groupBy) {
  storeId leads offered accepted declined expired contacted won lost revenue { currency amountMinor } medianSecondsToAccept } }`;

test('a visitor asks a store in the widget; the store accepts from its mail, records the sale; the funnel shows it', async () => {
  const store = world.stores.downtown;
  const admin = await f.userWithKey(t.em(), Role.CompanyAdmin, world.company);
  const staff = await f.userWithKey(t.em(), Role.CompanyLocationUser, world.company, { companyRetailerLocations: [store] });
  const created = await gql(t, admin.key, 'mutation($input: CreateSiteKeyInput!) { createSiteKey(input: $input) { key } }', {
    input: { name: 'Brand site', allowedOrigins: [new URL(host.url).origin] },
  });
  expect(created.body.errors).toBeUndefined();
  siteKey = created.body.data.createSiteKey.key;

  // 1. The visitor, on the brand's page, fills the store's form; the widget solves the proof-of-work.
  const page = await openBrandPage(browser, host.url, [service.url, host.url, tiles.url]);
  page.page.on('response', (r) => {
    if (r.url().startsWith(service.url)) statuses.push([r.status(), r.url()]);
  });
  const challenges: Array<Promise<{ cost: number; algorithm: string }>> = [];
  page.page.on('response', (r) => {
    if (r.url().includes('/store_locator/challenge')) challenges.push(r.json().then((c) => c.parameters));
  });
  await contactStore(page.page, store.id, {
    name: 'Vera Visitor',
    email: 'vera.visitor@example.com',
    message: 'Can I test ride the trail bike on Saturday?',
    productIds: [world.products.bike.id],
  });
  // One challenge fetched by the page and solved there, at the service's default cost (docs/configuration.md).
  expect(t.config.altcha).toMatchObject({ cost: 200, maxCounter: 5000 });
  expect(await Promise.all(challenges)).toEqual([expect.objectContaining({ algorithm: 'PBKDF2/SHA-256', cost: 200 })]);
  const [lead] = await sql(`select l.id, l.assignee_id, l.owner_company_id, l.source_type from leads l join emails e on e.lead_id = l.id where e.email = 'vera.visitor@example.com'`);
  expect(lead).toMatchObject({ assignee_id: store.id, owner_company_id: world.company.id, source_type: 'StoreLocatorForm' });

  // 2. The store user's assignment mail arrives at the SMTP receiver; the visitor gets a confirmation.
  await notifications.drain();
  await smtp.waitFor(() => smtp.to(staff.user.email).length > 0);
  const [assignment] = smtp.to(staff.user.email);
  expect(assignment.mail.text).toContain('Vera Visitor');
  const link = /(https?:\/\/\S+\/leads\/offer\/[^\s<>"]+)/.exec(assignment.mail.text!)?.[1];
  expect(link?.startsWith(`${service.url}/leads/offer/o1.${lead.id}.`)).toBe(true);
  expect(await new VisitorConfirmationWorker(t.orm, t.config).tick()).toBe(1);
  await smtp.waitFor(() => smtp.to('vera.visitor@example.com').length > 0);
  expect(smtp.to('vera.visitor@example.com')[0].mail.text).toContain('Summit Sports Downtown');

  // 3. The link opens the lead's page in the browser; Accept; the page says accepted.
  const offerPage = await browser.newPage();
  offerPage.on('response', (r) => {
    if (r.url().startsWith(service.url)) statuses.push([r.status(), r.url()]);
  });
  const opened = await offerPage.goto(link!, { waitUntil: 'load' });
  expect(opened?.status()).toBe(200);
  expect(await offerPage.$eval('h1', (h) => h.textContent)).toContain('Vera Visitor');
  expect(await offerPage.$eval('#state', (s) => s.getAttribute('data-state'))).toBe('open');
  const [answered] = await Promise.all([offerPage.waitForNavigation({ waitUntil: 'load' }), offerPage.click('#accept button')]);
  expect(answered?.status()).toBe(200);
  expect(await offerPage.$eval('#state', (s) => s.getAttribute('data-state'))).toBe('accepted');
  expect(await offerPage.$eval('#state', (s) => s.textContent)).toMatch(/accepted/i);
  await offerPage.close();
  await page.page.close();

  // 4. The store records the sale as a store's integration would: REST with its user's API key.
  const outcome = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, { key: staff.key, body: { result: 'won', amount_minor: 129_900, currency: 'USD', closed_on: '2026-12-05' } });
  expect(outcome.status).toBe(200);
  expect(outcome.body).toMatchObject({ status: 'Won', outcome: { result: 'won', amount_minor: 129_900, currency: 'USD', closed_on: '2026-12-05', recorded_by_id: staff.user.id } });

  // 5. The company admin's funnel: the store's accepted offer, its won lead and the revenue.
  const funnel = await gql(t, admin.key, FUNNEL, { where: null, groupBy: ['STORE'] });
  expect(funnel.body.errors).toBeUndefined();
  expect(funnel.body.data.leadFunnel).toEqual([
    {
      storeId: store.id,
      leads: 1,
      offered: 1,
      accepted: 1,
      declined: 0,
      expired: 0,
      contacted: 1,
      won: 1,
      lost: 0,
      revenue: [{ currency: 'USD', amountMinor: 129_900 }],
      medianSecondsToAccept: expect.any(Number),
    },
  ]);
  expect(funnel.body.data.leadFunnel[0].medianSecondsToAccept).toBeGreaterThanOrEqual(0);

  // The lead's events (its outbox), in order: offered to the store, accepted by its user, the outcome.
  const events = await sql(`select type, data from lead_events where lead_id = ? order by seq`, [lead.id]);
  const loop = events.filter((e: any) => ['lead.offered', 'lead.accepted', 'lead.outcome_recorded'].includes(e.type));
  expect(loop.map((e: any) => e.type)).toEqual(['lead.offered', 'lead.accepted', 'lead.outcome_recorded']);
  const [offerId] = (await sql(`select id from lead_offers where lead_id = ? and state = 'accepted'`, [lead.id])).map((r: any) => r.id);
  expect(loop[0].data).toMatchObject({ offer_id: offerId, store_id: store.id, handovers: 0 });
  expect(loop[1].data).toMatchObject({ offer_id: offerId, store_id: store.id, user_id: staff.user.id });
  expect(loop[2].data).toEqual({ result: 'won', amount_minor: 129_900, currency: 'USD', lost_reason: null, closed_on: '2026-12-05' });

  expect(statuses.filter(([s]) => s >= 500)).toEqual([]);
  expect(page.outside).toEqual([]);
}, 180_000);
