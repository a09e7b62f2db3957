// An escalated lead reaches a person (docs/notifications.md "The escalation mail", docs/lead-loop.md
// "Escalation"): declined or not accepted in time with no hand-over left, it is mailed to the territory
// manager of the store (else the company's admins), saying why, by which stores and that it needs
// reassigning; measured at a real SMTP receiver. The lead shows it (escalatedAt, offer.escalation) and the
// list filters on it, in GraphQL and REST; reassigning it clears it.
import request from 'supertest';
import { api, gql } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { LeadOfferWorker } from '../../src/modules/response-times/offer-lapse.worker';
import { checkUnsubscribeToken } from '../../src/modules/notifications/notification.token';
import { em, header, SECRET, setNow, smtp, t, useNotificationFixture, worker } from './notification-fixture';
import { SLA_MAILS_PER_HOUR } from '../../src/modules/notifications/notification.defaults';

useNotificationFixture();

const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

async function ok(key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

/** The roles' network with named stores and the company's hand-over limit. */
async function network(maxHandovers: number, extra: Record<string, unknown> = {}) {
  const r = await roles(em());
  await sql(`update company_retailer_locations set name = 'North Shop' where id = ?`, [r.net.storeNorth.id]);
  await sql(`update company_retailer_locations set name = 'South Shop' where id = ?`, [r.net.storeSouth.id]);
  await ok(r.users.companyAdmin.key, 'mutation($input: ResponseTimeSettingsInput!) { updateResponseTimeSettings(input: $input) { maxHandovers } }', {
    input: { maxHandovers, ...extra },
  });
  return r;
}

const LEAD = `query($id: ID!) { lead(id: $id) { id escalatedAt assigneeId offer { storeId state escalation handovers } } }`;
const ESCALATED = `query { leads(where: { escalatedAt: { exists: true } }, perPage: 500) { nodes { id } } }`;

test('a decline past the maximum hand-overs: the territory manager is mailed why, by which store and that it needs reassigning; nobody else; the lead and the list show it', async () => {
  const { net, users } = await network(0);
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Stuck Lead', assignee_id: net.storeNorth.id }));
  await worker.drain();
  smtp.received.length = 0;

  // North's location user declines: no hand-over is left (0), so the lead is escalated and stays at North.
  const declined = await api(t, 'post', `/v1/leads/${lead.id}/decline`, { key: users.locationUser.key, body: { reason: 'no_capacity' } });
  expect(declined.status).toBe(200);
  expect(declined.body.escalated_at).toEqual(expect.any(String));
  await worker.drain();

  const mails = smtp.to(users.territoryManager.user.email);
  expect(mails).toHaveLength(1);
  const mail = mails[0].mail;
  expect(mail.subject).toBe('Escalated lead to reassign: Stuck Lead');
  expect(mail.text).toContain("it was declined once, the company's maximum of 0 hand-overs, so it was not handed to another store.");
  expect(mail.text).toContain('By: North Shop (declined).');
  expect(mail.text).toContain('It stays with North Shop, with no open offer: it needs reassigning to a store.');
  // Its link opens the lead's page, which shows the lead as escalated, waiting to be reassigned.
  const link = /https:\/\/leadnet\.example(\/leads\/offer\/\S+)/.exec(mail.text!)![1];
  const opened = await request(t.app).get(link);
  expect(opened.status).toBe(200);
  expect(opened.text).toContain('data-state="escalated"');
  expect(opened.text).toContain('North Shop declined this lead (');
  expect(opened.text).toContain('Stuck Lead');
  expect(mail.html).toContain('<p>It stays with North Shop, with no open offer: it needs reassigning to a store.</p>');
  // Its unsubscribe link is the escalation mails' own (checked at the end).
  const unsubscribe = new URL(/<([^>]+)>/.exec(header(mails[0], 'list-unsubscribe')!)![1]);
  expect(checkUnsubscribeToken(SECRET, unsubscribe.searchParams.get('token'), new Date())).toMatchObject({ ok: true, userId: users.territoryManager.user.id, topic: 'lead_escalated' });
  // The admin (the store has a territory manager), the decliner and the other store's staff hear nothing of it.
  expect(smtp.received.filter((m) => String(m.mail.subject).startsWith('Escalated'))).toHaveLength(1);
  expect(smtp.to(users.companyAdmin.user.email)).toHaveLength(0);
  expect(smtp.to(users.locationUser.user.email)).toHaveLength(0);
  // Nor do those who see the store but do not reassign for the company (its retailer's people), nor another company.
  for (const u of [users.retailerAdmin, users.storeManager, users.retailerManager, users.otherAdmin]) {
    expect(smtp.to(u.user.email).filter((m) => String(m.mail.subject).startsWith('Escalated'))).toHaveLength(0);
  }

  // The delivery log: one lead_escalated delivery, queued then sent.
  const log = await ok(users.companyAdmin.key, `query($where: NotificationDeliveryWhere) { notificationDeliveries(where: $where, first: 50) { kind status recipientId log { status } } }`, {
    where: { leadId: lead.id },
  });
  const escalation = log.notificationDeliveries.filter((d: any) => d.kind === 'lead_escalated');
  expect(escalation).toEqual([{ kind: 'lead_escalated', status: 'SENT', recipientId: users.territoryManager.user.id, log: [{ status: 'QUEUED' }, { status: 'SENT' }] }]);

  // The lead says so in GraphQL and REST, and the territory manager's list filters on it.
  const shown = (await ok(users.territoryManager.key, LEAD, { id: lead.id })).lead;
  expect(shown).toMatchObject({ escalatedAt: expect.any(String), assigneeId: net.storeNorth.id, offer: { storeId: net.storeNorth.id, state: 'DECLINED', escalation: 'MAX_HANDOVERS', handovers: 0 } });
  expect((await ok(users.territoryManager.key, ESCALATED)).leads.nodes.map((n: any) => n.id)).toEqual([lead.id]);
  const rest = await api(t, 'get', `/v1/leads?opts[where][escalated_at][exists]=true`, { key: users.territoryManager.key });
  expect(rest.status).toBe(200);
  expect(rest.body.leads.map((l: any) => [l.id, typeof l.escalated_at])).toEqual([[lead.id, 'string']]);
  // Another company's admin lists none of it.
  expect((await ok(users.otherAdmin.key, ESCALATED)).leads.nodes).toEqual([]);

  // Reassigned by hand to South: a new offer, no longer escalated.
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: net.storeSouth.id } } })).status).toBe(200);
  expect((await ok(users.companyAdmin.key, LEAD, { id: lead.id })).lead).toMatchObject({ escalatedAt: null, offer: { storeId: net.storeSouth.id, state: 'OPEN', escalation: null, handovers: 1 } });
  expect((await ok(users.territoryManager.key, ESCALATED)).leads.nodes).toEqual([]);
  // The manager's link no longer shows it: the lead went to a store outside the manager's territory.
  expect((await request(t.app).get(link)).status).toBe(403);
  await worker.drain();
  smtp.received.length = 0;

  // South (a territory with no manager) declines it too: escalated again, to the company's admins, in French for one who reads French.
  await sql(`update users set locale = 'fr' where id = ?`, [users.companyAdmin.user.id]);
  expect((await api(t, 'post', `/v1/leads/${lead.id}/decline`, { key: users.salesAssociate.key, body: { reason: 'too_far' } })).status).toBe(200);
  await worker.drain();
  const [fr] = smtp.to(users.companyAdmin.user.email);
  expect(fr.mail.subject).toBe('Contact escaladé à réattribuer : Stuck Lead');
  expect(fr.mail.text).toContain("il a été refusé 2 fois, le maximum de 0 transmission de l'entreprise, il n'a donc pas été transmis à un autre magasin.");
  expect(fr.mail.text).toContain('Par : North Shop (refusé), South Shop (refusé).');
  expect(fr.mail.text).toContain('Il reste attribué à South Shop, sans offre ouverte');
  expect(smtp.to(users.territoryManager.user.email)).toHaveLength(0);
  expect(smtp.to(users.salesAssociate.user.email)).toHaveLength(0);

  // The manager's one-click unsubscribe turns escalation mails off, and nothing else.
  const done = await request(t.app).post(`${unsubscribe.pathname}${unsubscribe.search}`).type('form').send('List-Unsubscribe=One-Click');
  expect(done.status).toBe(200);
  expect(done.text).toContain('escalated leads');
  expect((await ok(users.territoryManager.key, '{ notificationPreferences { leadEscalated slaBreached leadAssigned } }')).notificationPreferences).toEqual({
    leadEscalated: 'OFF',
    slaBreached: 'OFF',
    leadAssigned: 'OFF',
  });
});

test('a lapse with no store left: "not accepted in time"; a manager who turned escalation mails off hears nothing; DAILY_DIGEST is refused', async () => {
  const { net, users } = await network(3, { acceptMinutes: 60, businessHours: false });
  const prefs = await ok(users.territoryManager.key, '{ notificationPreferences { leadEscalated slaBreached leadAssigned } }');
  // On by default for the people who reassign (territory managers, admins), though breach and lead mails are opt-in for them.
  expect(prefs.notificationPreferences).toEqual({ leadEscalated: 'IMMEDIATE', slaBreached: 'OFF', leadAssigned: 'OFF' });
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Slow Lead', assignee_id: net.storeNorth.id }));
  await worker.drain();
  smtp.received.length = 0;

  const later = new Date(Date.now() + 2 * 3_600_000);
  const offers = new LeadOfferWorker(t.orm, { clock: () => later });
  await offers.tick(); // its window is computed (60 minutes from the offer)...
  await offers.tick(); // ...and past: expired; routing has no rule, so no store is eligible.
  const [event] = await sql(`select data from lead_events where lead_id = ? and type = 'lead.offer_expired'`, [lead.id]);
  expect(event.data).toMatchObject({ escalation: 'no_eligible_store', next_store_id: null });
  await worker.drain();
  const [mail] = smtp.to(users.territoryManager.user.email);
  expect(mail.mail.subject).toBe('Escalated lead to reassign: Slow Lead');
  expect(mail.mail.text).toContain('it was not accepted in time once, and no other store can take it.');
  expect(mail.mail.text).toContain('By: North Shop (not accepted in time).');
  const page = await request(t.app).get(/https:\/\/leadnet\.example(\/leads\/offer\/\S+)/.exec(mail.mail.text!)![1]);
  expect(page.status).toBe(200);
  expect(page.text).toContain('North Shop did not accept this lead in time (');
  expect((await ok(users.territoryManager.key, LEAD, { id: lead.id })).lead.offer).toMatchObject({ state: 'EXPIRED', escalation: 'NO_ELIGIBLE_STORE' });

  // Turned off: the next escalation is not mailed to the manager (and not to the admins instead: the store has its manager).
  const bad = await gql(t, users.territoryManager.key, 'mutation { updateNotificationPreferences(input: { leadEscalated: DAILY_DIGEST }) { leadEscalated } }');
  expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  expect((await ok(users.territoryManager.key, 'mutation { updateNotificationPreferences(input: { leadEscalated: OFF }) { leadEscalated } }')).updateNotificationPreferences.leadEscalated).toBe('OFF');
  smtp.received.length = 0;
  const other = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Quiet Lead', assignee_id: net.storeNorth.id }));
  expect((await api(t, 'post', `/v1/leads/${other.id}/decline`, { key: users.locationUser.key, body: { reason: 'duplicate' } })).status).toBe(200);
  await worker.drain();
  expect(smtp.received.filter((m) => String(m.mail.subject).startsWith('Escalated'))).toHaveLength(0);
  expect((await ok(users.territoryManager.key, LEAD, { id: other.id })).lead.escalatedAt).toEqual(expect.any(String));
});

test('a mass escalation: at most 5 escalation mails per recipient and clock hour, the rest in one digest at the hour\'s end', async () => {
  const { net, users } = await network(0);
  const leads = [];
  for (let i = 1; i <= 7; i++) leads.push(await createLead(t, users.companyAdmin.key, quoteRequest({ name: `Mass ${i}`, assignee_id: net.storeNorth.id })));
  await worker.drain();
  smtp.received.length = 0;
  for (const lead of leads) expect((await api(t, 'post', `/v1/leads/${lead.id}/decline`, { key: users.locationUser.key, body: { reason: 'no_capacity' } })).status).toBe(200);

  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  setNow(new Date(hour + 10 * 60_000));
  await worker.drain();
  expect(SLA_MAILS_PER_HOUR).toBe(5);
  const first = smtp.to(users.territoryManager.user.email);
  expect(first.map((m) => m.mail.subject)).toEqual(expect.arrayContaining([expect.stringMatching(/^Escalated lead to reassign: Mass \d$/)]));
  expect(first).toHaveLength(5);
  setNow(new Date(hour + 60 * 60_000 + 1000));
  await worker.drain();
  const all = smtp.to(users.territoryManager.user.email);
  expect(all).toHaveLength(6);
  expect(all[5].mail.subject).toBe('2 more escalated leads to reassign');
  expect(all[5].mail.text).toContain('These 2 leads were also escalated in the last hour: no store took them, and they need reassigning.');
  const told = new Set([...first.map((m) => /Mass \d/.exec(m.mail.subject!)![0]), ...all[5].mail.text!.match(/Mass \d/g)!]);
  expect(told.size).toBe(7);
});
