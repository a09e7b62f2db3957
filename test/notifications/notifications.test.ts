// E-mail notifications (docs/notifications.md), delivered to a real SMTP server and parsed as a mail client would.
import request from 'supertest';
import { api, gql } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, roles, withGeocoder } from '../support/leads';
import { locatorNetwork, store } from '../support/locator-factories';
import { Role } from '../../src/modules/user/role';
import { NotificationWorker } from '../../src/modules/notifications/notification.worker';
import { unsubscribeToken } from '../../src/modules/notifications/notification.token';
import { ConfigError, parseConfig } from '../../src/config';
import { logger } from '../../src/logger';
import { startNotifications } from '../../src/modules/notifications/notification.start';
import { clock, em, header, now, SECRET, setNow, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture({ NOTIFICATION_LEAD_URL: 'https://app.example/leads/{id}' });

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const PREFS = 'email locale leadAssigned leadAssignedIsDefault';

async function setPrefs(key: string, input: Record<string, unknown>) {
  const res = await gql(t, key, `mutation($input: NotificationPreferencesInput!) { updateNotificationPreferences(input: $input) { ${PREFS} } }`, { input });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.updateNotificationPreferences;
}

let phoneSeq = 0;
function fullLead(extra: Record<string, unknown> = {}) {
  const body = quoteRequest({
    name: 'Jeanne Dupont',
    phone_numbers: [{ phone_number: `+1 503 555 ${String(1000 + (++phoneSeq % 9000))}` }],
    location: { street_line_one: '12 Rue Anvil', city: 'Portland', province: 'OR', postal_code: '97205', country: 'US' },
    ...extra,
  });
  (body.lead.lead_activities[0] as any).data.products = [{ name: 'Anvil', sku: 'ANV-1', quantity: 2 }, { sku: 'HAM-9' }];
  return body;
}

const unsubscribeUrl = (m: { mail: any }) => /<([^>]+)>/.exec(header(m, 'list-unsubscribe')!)![1];

describe('notifications: configuration', () => {
  test('without SMTP_URL nothing is sent and the start-up log says so; SMTP_URL needs a secret for its links', async () => {
    const info = jest.spyOn(logger, 'info');
    try {
      const off = startNotifications(t.orm, parseConfig({ DATABASE_URL: 'postgres://x@127.0.0.1/x', LOG_LEVEL: 'silent' }));
      expect(info).toHaveBeenCalledWith(expect.stringMatching(/SMTP_URL is not set, so no e-mail is sent/));
      await off.stop();
    } finally {
      info.mockRestore();
    }
    expect(() => parseConfig({ SMTP_URL: smtp.url })).toThrow(ConfigError);
    expect(() => parseConfig({ SMTP_URL: 'http://mail.example', NOTIFICATION_SECRET: SECRET })).toThrow(/SMTP_URL/);
  });
});

describe('notifications: who gets what', () => {
  test("a lead assigned on create reaches the store's users, each in their language, as text and HTML", async () => {
    const { net, users } = await roles(em());
    await setPrefs(users.storeManager.key, { locale: 'FR' });
    const lead = await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id }));
    await worker.drain();

    // The North store's own staff by default; not the South store's, not the admins or managers (opt-in).
    const en = users.locationUser.user.email;
    const fr = users.storeManager.user.email;
    expect(smtp.received.map((r) => r.to).flat().sort()).toEqual([en, fr].sort());

    const [mail] = smtp.to(en);
    expect(mail.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.mail.subject).toBe('New lead: Jeanne Dupont');
    expect(mail.mail.from?.text).toContain('leadnet');
    for (const part of [mail.mail.text!, mail.mail.html as string]) {
      expect(part).toContain('Jeanne Dupont');
      expect(part).toContain(lead.emails[0].email);
      expect(part).toContain(lead.phone_numbers[0].phone_number);
      expect(part).toContain('Portland');
      expect(part).toContain('Anvil');
      expect(part).toContain('HAM-9');
      expect(part).toContain(`https://app.example/leads/${lead.id}`);
    }
    expect(mail.mail.text).toContain('Products asked for: Anvil (quantity 2), HAM-9');
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(unsubscribeUrl(mail)).toMatch(/^https:\/\/leadnet\.example\/notifications\/unsubscribe\?token=u1\./);
    expect(mail.mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.mail.headers.get('x-leadnet-event-id')).toBeTruthy();

    const [french] = smtp.to(fr);
    expect(french.mail.subject).toBe('Nouveau contact : Jeanne Dupont');
    expect(french.mail.text).toContain('Produits demandés : '.replace(' :', ':'));
    expect(french.mail.text).toContain('Voir le contact');
    expect(String(french.mail.html)).toContain('<html lang="fr">');
  });

  test('an admin who opts in hears about every store; another company hears nothing; the operator has no settings', async () => {
    const { net, users } = await roles(em());
    expect((await setPrefs(users.companyAdmin.key, { leadAssigned: 'IMMEDIATE' })).leadAssignedIsDefault).toBe(false);
    await setPrefs(users.otherAdmin.key, { leadAssigned: 'IMMEDIATE' });
    await setPrefs(users.territoryManager.key, { leadAssigned: 'IMMEDIATE' }); // North's manager
    // Made by a colleague: nobody is mailed about their own action (docs/notifications.md).
    const colleague = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
    await createLead(t, colleague.key, fullLead({ assignee_id: net.storeSouth.id }));
    await worker.drain();
    expect(smtp.received.map((r) => r.to).flat().sort()).toEqual([users.companyAdmin.user.email, users.salesAssociate.user.email].sort());
    expect(code(await gql(t, users.operator.key, `{ notificationPreferences { ${PREFS} } }`))).toBe('FORBIDDEN');
    expect(code(await gql(t, null, `{ notificationPreferences { ${PREFS} } }`))).toBe('UNAUTHENTICATED');
  });

  test('an update that reassigns notifies the new store; once per event and recipient, however many workers run', async () => {
    const { net, users } = await roles(em());
    const lead = await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id }));
    const other = new NotificationWorker(t.orm, t.config, { clock });
    await Promise.all([worker.drain(), other.drain(), worker.drain()]);
    await other.stop();
    expect(smtp.to(users.locationUser.user.email)).toHaveLength(1);

    // A change that is not an assignment tells no one.
    expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key, body: { lead: { status: 'Contacted' } } })).status).toBe(200);
    await worker.drain();
    expect(smtp.received).toHaveLength(2);

    const moved = await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: net.storeSouth.id } } });
    expect(moved.status).toBe(200);
    await worker.drain();
    expect(smtp.to(users.salesAssociate.user.email)).toHaveLength(1);
    // North's staff, who were mailed the offer, are told the lead went elsewhere (docs/notifications.md "The lost-lead mail").
    expect(smtp.to(users.locationUser.user.email).map((m) => m.mail.subject)).toEqual(['New lead: Jeanne Dupont', 'Lead passed to another store: Jeanne Dupont']);

    const [{ n }] = await em().getConnection().execute(`select count(*)::int as n from notification_deliveries where lead_id = ? and kind <> 'lead_lost'`, [lead.id]);
    expect(n).toBe(3);
  });

  test('a lead routed to a store notifies its staff', async () => {
    const net = await locatorNetwork(em());
    const admin = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
    const crl = await store(em(), net.companyRetailer, { latitude: 45, longitude: -100 });
    const staff = await f.userWithKey(em(), Role.CompanyLocationUser, net.company, { companyRetailerLocations: [crl] });
    const routing = await gql(t, admin.key, 'mutation($input: RoutingSettingsInput!) { updateRoutingSettings(input: $input) { enabled } }', {
      input: { enabled: true, strategies: ['Nearest'], nearestMaxDistanceMiles: 50 },
    });
    expect(routing.body.errors).toBeUndefined();
    const spy = withGeocoder({ geocode: async () => ({ latitude: 45, longitude: -100 }) });
    try {
      const lead = await createLead(t, admin.key, fullLead());
      expect(lead.assignee.id).toBe(crl.id);
    } finally {
      spy.mockRestore();
    }
    await worker.drain();
    expect(smtp.to(staff.user.email)).toHaveLength(1);
  });
});

describe('notifications: preferences and unsubscribing', () => {
  test('the unsubscribe link stops the mail: GET asks, POST (RFC 8058 one-click) unsubscribes', async () => {
    const { net, users } = await roles(em());
    await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id }));
    await worker.drain();
    const [mail] = smtp.to(users.locationUser.user.email);
    const url = new URL(unsubscribeUrl(mail));
    const path = url.pathname + url.search;

    const asked = await request(t.app).get(path);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<form method="post"');
    expect((await gql(t, users.locationUser.key, `{ notificationPreferences { ${PREFS} } }`)).body.data.notificationPreferences).toMatchObject({
      leadAssigned: 'IMMEDIATE',
      leadAssignedIsDefault: true,
    });

    const done = await request(t.app).post(path).type('form').send('List-Unsubscribe=One-Click');
    expect(done.status).toBe(200);
    expect(done.text).toContain('You are unsubscribed');
    expect((await gql(t, users.locationUser.key, `{ notificationPreferences { ${PREFS} } }`)).body.data.notificationPreferences.leadAssigned).toBe('OFF');

    smtp.received.length = 0;
    await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id }));
    await worker.drain();
    expect(smtp.to(users.locationUser.user.email)).toHaveLength(0);
    expect(smtp.to(users.storeManager.user.email)).toHaveLength(1);
    // Twice is fine.
    expect((await request(t.app).post(path)).status).toBe(200);
  });

  test('forged, expired, garbled and foreign tokens get a clear page, never a 5xx, and unsubscribe no one', async () => {
    const { users } = await roles(em());
    const id = users.locationUser.user.id;
    const good = unsubscribeToken(SECRET, id, new Date());
    const sig = good.split('.')[3];
    const flipped = `${good.slice(0, -sig.length)}${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
    const cases: Array<[string, number, RegExp]> = [
      [flipped, 400, /not valid/],
      [unsubscribeToken('another secret'.padEnd(40, '!'), id, new Date()), 400, /not valid/],
      [good.replace(id, users.storeManager.user.id), 400, /not valid/],
      [unsubscribeToken(SECRET, id, new Date(Date.now() - 91 * 86_400_000)), 410, /expired/],
      ['%%%', 400, /not valid/],
      ['u1.' + 'x'.repeat(5000), 400, /not valid/],
      ['', 400, /not valid/],
      ['u1.not-a-uuid.1.' + 'A'.repeat(43), 400, /not valid/],
    ];
    for (const [token, status, text] of cases) {
      for (const method of ['get', 'post'] as const) {
        const res = await request(t.app)[method]('/notifications/unsubscribe').query({ token });
        expect([token, method, res.status]).toEqual([token, method, status]);
        expect(res.text).toMatch(text);
        expect(res.headers['content-type']).toMatch(/text\/html/);
      }
    }
    const arrays = await request(t.app).post('/notifications/unsubscribe?token[]=a&token[]=b');
    expect(arrays.status).toBe(400);
    const none = await request(t.app).post('/notifications/unsubscribe');
    expect(none.status).toBe(400);
    const gone = await request(t.app).post('/notifications/unsubscribe').query({ token: unsubscribeToken(SECRET, '00000000-0000-4000-8000-000000000000', new Date()) });
    expect(gone.status).toBe(400);
    expect((await gql(t, users.locationUser.key, `{ notificationPreferences { leadAssigned } }`)).body.data.notificationPreferences.leadAssigned).toBe('IMMEDIATE');
  });

  test('malformed preferences are BAD_USER_INPUT and change nothing', async () => {
    const { users } = await roles(em());
    const key = users.locationUser.key;
    const mutation = `mutation($input: NotificationPreferencesInput!) { updateNotificationPreferences(input: $input) { ${PREFS} } }`;
    for (const input of [
      { leadAssigned: 'SOMETIMES' },
      { leadAssigned: 'off' },
      { locale: 'de' },
      { locale: 42 },
      { leadAssigned: null },
      { locale: null },
      { leadAssigned: ['OFF'] },
      { nope: true },
      'OFF',
      null,
    ]) {
      const res = await gql(t, key, mutation, { input });
      expect([input, code(res)]).toEqual([input, 'BAD_USER_INPUT']);
    }
    const huge = await gql(t, key, mutation, { input: { leadAssigned: 'Off'.repeat(100_000) } });
    expect(huge.status).toBeLessThan(500);
    const read = await gql(t, key, `{ notificationPreferences { ${PREFS} } }`);
    expect(read.body.data.notificationPreferences).toEqual({ email: users.locationUser.user.email, locale: 'EN', leadAssigned: 'IMMEDIATE', leadAssignedIsDefault: true });
  });

  test('a daily digest gathers the day\'s leads into one mail at the digest hour', async () => {
    const { net, users } = await roles(em());
    await setPrefs(users.locationUser.key, { leadAssigned: 'DAILY_DIGEST', locale: 'FR' });
    const a = await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id, name: 'Premier' }));
    const b = await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id, name: 'Second' }));
    await worker.drain();
    expect(smtp.to(users.locationUser.user.email)).toHaveLength(0);
    expect(smtp.to(users.storeManager.user.email)).toHaveLength(2);

    setNow(new Date(now.getTime() + 25 * 3_600_000));
    await worker.drain();
    const digests = smtp.to(users.locationUser.user.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].mail.subject).toBe('2 nouveaux contacts pour vos magasins');
    for (const lead of [a, b]) expect(digests[0].mail.text).toContain(`https://app.example/leads/${lead.id}`);
    expect(header(digests[0], 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    await worker.drain();
    expect(smtp.to(users.locationUser.user.email)).toHaveLength(1);
  });
});

describe('notifications: the digest hour by the user\'s clock', () => {
  test('a digest comes at NOTIFICATION_DIGEST_HOUR in the user\'s own time zone, else its store\'s, across the spring DST change', async () => {
    const { net, users } = await roles(em());
    const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);
    await sql(`update retailer_locations set timezone = 'America/New_York' where id = ?`, [net.storeNorth.retailerLocation!.id]);
    await setPrefs(users.storeManager.key, { leadAssigned: 'DAILY_DIGEST' }); // its store's zone: New York
    await setPrefs(users.locationUser.key, { leadAssigned: 'DAILY_DIGEST', timeZone: 'Europe/Paris' });
    const zone = async (key: string) => (await gql(t, key, '{ notificationPreferences { timeZone timeZoneIsDefault } }')).body.data.notificationPreferences;
    expect(await zone(users.storeManager.key)).toEqual({ timeZone: 'America/New_York', timeZoneIsDefault: true });
    expect(await zone(users.locationUser.key)).toEqual({ timeZone: 'Europe/Paris', timeZoneIsDefault: false });
    expect(await zone(users.companyAdmin.key)).toEqual({ timeZone: 'UTC', timeZoneIsDefault: true });
    expect(t.config.notifications.digestHour).toBe(7);

    const digestsAt = async (iso: string) => {
      setNow(new Date(iso));
      await worker.drain();
      return { paris: smtp.to(users.locationUser.user.email).length, newYork: smtp.to(users.storeManager.user.email).length };
    };
    // Friday 2026-03-06, 13:00 in New York (EST); New York springs forward on Sunday 03-08, Paris on 03-29.
    setNow(new Date('2026-03-06T18:00:00Z'));
    await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id, name: 'Before' }));
    expect(await digestsAt('2026-03-06T18:00:00Z')).toEqual({ paris: 0, newYork: 0 });
    expect(await digestsAt('2026-03-07T05:59:00Z')).toEqual({ paris: 0, newYork: 0 });
    expect(await digestsAt('2026-03-07T06:00:00Z')).toEqual({ paris: 1, newYork: 0 }); // 07:00 CET
    expect(await digestsAt('2026-03-07T11:59:00Z')).toEqual({ paris: 1, newYork: 0 });
    expect(await digestsAt('2026-03-07T12:00:00Z')).toEqual({ paris: 1, newYork: 1 }); // 07:00 EST

    setNow(new Date('2026-03-07T18:00:00Z'));
    await createLead(t, users.companyAdmin.key, fullLead({ assignee_id: net.storeNorth.id, name: 'After' }));
    expect(await digestsAt('2026-03-07T18:00:00Z')).toEqual({ paris: 1, newYork: 1 });
    expect(await digestsAt('2026-03-08T06:00:00Z')).toEqual({ paris: 2, newYork: 1 });
    expect(await digestsAt('2026-03-08T10:59:00Z')).toEqual({ paris: 2, newYork: 1 });
    expect(await digestsAt('2026-03-08T11:00:00Z')).toEqual({ paris: 2, newYork: 2 }); // 07:00 EDT, an hour earlier in UTC
    expect(smtp.to(users.storeManager.user.email)[1].mail.text).toContain('After');
    expect(smtp.to(users.storeManager.user.email)[1].mail.text).not.toContain('Before');

    // Back to the default: the store's zone.
    const cleared = await gql(t, users.locationUser.key, 'mutation { updateNotificationPreferences(input: { timeZone: null }) { timeZone timeZoneIsDefault } }');
    expect(cleared.body.data.updateNotificationPreferences).toEqual({ timeZone: 'America/New_York', timeZoneIsDefault: true });
  });

  test('a time zone that is not an IANA name is BAD_USER_INPUT and changes nothing', async () => {
    const { users } = await roles(em());
    const key = users.locationUser.key;
    await setPrefs(key, { timeZone: 'Asia/Tokyo' });
    const mutation = 'mutation($input: NotificationPreferencesInput!) { updateNotificationPreferences(input: $input) { timeZone } }';
    for (const timeZone of ['Mars/Olympus_Mons', '+05:00', 'PST', '', 'Europe/Paris\nBcc: x', 'A/'.repeat(50_000), 42, ['UTC'], { zone: 'UTC' }]) {
      const res = await gql(t, key, mutation, { input: { timeZone } });
      expect(res.status).toBeLessThan(500);
      expect([timeZone, code(res)]).toEqual([timeZone, 'BAD_USER_INPUT']);
    }
    expect((await gql(t, key, '{ notificationPreferences { timeZone } }')).body.data.notificationPreferences.timeZone).toBe('Asia/Tokyo');
  });
});

describe('notifications: abuse', () => {
  test('CR/LF in a lead name creates no header and no recipient; HTML in lead fields is escaped', async () => {
    const { net, users } = await roles(em());
    const body = fullLead({ assignee_id: net.storeNorth.id, name: 'Eve\r\nBcc: victim@evil.example\r\nX-Evil: 1\n\n<script>alert(1)</script>' });
    (body.lead.lead_activities[0] as any).data.products = [{ name: '<img src=x onerror=alert(1)>', quantity: '1"><b>' }];
    await createLead(t, users.companyAdmin.key, body);
    await worker.drain();
    const [mail] = smtp.to(users.locationUser.user.email);
    expect(smtp.received.flatMap((r) => r.to)).not.toContain('victim@evil.example');
    expect(mail.mail.headers.has('bcc')).toBe(false);
    expect(mail.mail.headers.has('x-evil')).toBe(false);
    expect(mail.mail.subject).toBe('New lead: Eve Bcc: victim@evil.example X-Evil: 1 <script>alert(1)</script>');
    const html = String(mail.mail.html);
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  test("an organisation whose mail conversations hang delays no other organisation's mail", async () => {
    const a = await roles(em());
    const b = await roles(em());
    const stuck = a.users.locationUser.user.email.toLowerCase();
    smtp.hang.add(stuck);
    try {
      for (let i = 0; i < 4; i++) await createLead(t, a.users.companyAdmin.key, fullLead({ assignee_id: a.net.storeNorth.id }));
      worker.start();
      await smtp.waitFor(() => (smtp.hanging.get(stuck) ?? 0) >= 2);
      await createLead(t, b.users.companyAdmin.key, fullLead({ assignee_id: b.net.storeNorth.id }));
      // B's mail arrives while A's conversations are stalled (each until the 4 s SMTP timeout), never more than 2 at once.
      await smtp.waitFor(() => smtp.to(b.users.locationUser.user.email).length === 1 && smtp.to(b.users.storeManager.user.email).length === 1);
      expect(smtp.maxStalled()).toBe(2);
    } finally {
      smtp.hang.clear();
      await worker.stop();
    }
    // A's stalled mails failed and are retried after their backoff: they arrive then, once each.
    const [{ n }] = await em().getConnection().execute(
      `select count(*)::int as n from notification_deliveries d join users u on u.id = d.user_id where u.email = ? and d.status = 'pending' and d.attempts >= 1`,
      [a.users.locationUser.user.email],
    );
    expect(n).toBeGreaterThanOrEqual(1);
    setNow(new Date(Date.now() + 2 * 3_600_000));
    await worker.drain();
    expect(smtp.to(stuck)).toHaveLength(4);
  });
});
