// Consent records through the API, their withdrawal, and what a withdrawal stops (docs/personal-data.md
// "Consent"): written over REST and GraphQL, read on the lead, withdrawn by whoever may update the lead,
// audited; after a withdrawal of `contact` no notification mail about the person reaches a real SMTP server.
import { api, gql } from '../support/app';
import { VisitorConfirmationWorker } from '../../src/modules/site-keys/visitor-confirmation.worker';
import { createLead, quoteRequest, roles } from '../support/leads';
import { em, setNow, now, smtp, t, useNotificationFixture, worker } from '../notifications/notification-fixture';

useNotificationFixture();

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;
const CONSENT = { purpose: 'contact', text: 'You may contact me about my request.', version: 'v3', given_at: '2026-12-01T10:00:00Z' };
const CONSENTS = '{ consents { purpose text version source givenAt withdrawnAt } }';

async function consentsOf(key: string, id: string) {
  const res = await gql(t, key, `query($id: ID!) { lead(id: $id) ${CONSENTS} }`, { id });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.lead.consents as Array<Record<string, unknown>>;
}

async function withdraw(key: string, leadId: string, purpose = 'contact') {
  return gql(t, key, `mutation($id: ID!, $p: String!) { withdrawLeadConsent(leadId: $id, purpose: $p) { id ${CONSENTS.slice(1, -1)} } }`, { id: leadId, p: purpose });
}

describe('consent: written through the API', () => {
  test('REST create and PATCH add consents (source api), GraphQL reads them; bad ones are 422 and nothing is written', async () => {
    const { users } = await roles(em());
    const key = users.companyAdmin.key;
    const lead = await createLead(t, key, quoteRequest({ consents: [CONSENT] }));
    expect(await consentsOf(key, lead.id)).toEqual([
      { purpose: 'contact', text: CONSENT.text, version: 'v3', source: 'api', givenAt: '2026-12-01T10:00:00.000Z', withdrawnAt: null },
    ]);

    const patched = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { consents: [{ text: 'Call me.', version: 'v4' }] } } });
    expect(patched.status).toBe(200);
    const after = await consentsOf(key, lead.id);
    expect(after.map((c) => [c.version, c.source, c.purpose])).toEqual([['v3', 'api', 'contact'], ['v4', 'api', 'contact']]);

    const bads: unknown[] = [
      [{ text: '', version: 'v1' }],
      [{ text: 'x', version: 'v1', purpose: 'marketing' }],
      [{ text: 'x' }],
      [{ text: 'x', version: 'v1', given_at: '2999-01-01T00:00:00Z' }],
      [{ text: 'x', version: 'v1', given_at: 'yesterday' }],
      [{ text: 5, version: 'v1' }],
      [{ text: 'x'.repeat(2001), version: 'v1' }],
      ['nope'],
      'nope',
      { text: 'x', version: 'v1' },
    ];
    for (const consents of bads) {
      const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ consents }) });
      expect([consents, res.status]).toEqual([consents, 422]);
    }
    const tooMany = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { consents: Array.from({ length: 21 }, () => ({ text: 'x', version: 'v' })) } } });
    expect(tooMany.status).toBe(422);
    expect(await consentsOf(key, lead.id)).toHaveLength(2);

    // GraphQL's createLead and the batch take them too.
    const created = await gql(t, key, `mutation($input: LeadInput!) { createLead(input: $input) { id ${CONSENTS.slice(1, -1)} } }`, {
      input: { name: 'G', emails: [{ email: `g.${Date.now()}@example.com` }], consents: [{ text: 'ok', version: 'g1' }] },
    });
    expect(created.body.errors).toBeUndefined();
    expect(created.body.data.createLead.consents).toMatchObject([{ version: 'g1', source: 'api', withdrawnAt: null }]);
    const batch = await api(t, 'post', '/v1/leads/batch', { key, body: { leads: [quoteRequest({ consents: [{ text: 'b', version: 'b1' }] }).lead] } });
    expect(batch.status).toBeLessThan(300);
    const batchId = JSON.stringify(batch.body).match(/"id":"([0-9a-f-]{36})"/)![1];
    expect((await consentsOf(key, batchId)).map((c) => c.version)).toEqual(['b1']);
  });

  test("another company's lead is NOT_FOUND, for reading its consents and for withdrawing; the operator is FORBIDDEN", async () => {
    const { users } = await roles(em());
    const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ consents: [CONSENT] }));
    expect(code(await gql(t, users.otherAdmin.key, `query($id: ID!) { lead(id: $id) ${CONSENTS} }`, { id: lead.id }))).toBe('NOT_FOUND');
    expect(code(await withdraw(users.otherAdmin.key, lead.id))).toBe('NOT_FOUND');
    expect(code(await withdraw(users.operator.key, lead.id))).toBe('FORBIDDEN');
    expect(code(await withdraw(users.companyAdmin.key, 'not-a-uuid'))).toBe('NOT_FOUND');
    expect(code(await withdraw(users.companyAdmin.key, lead.id, 'marketing'))).toBe('BAD_USER_INPUT');
    expect((await consentsOf(users.companyAdmin.key, lead.id))[0].withdrawnAt).toBeNull();
  });

  test('a store user who sees the lead may withdraw (the person may ask their store); the withdrawal is audited', async () => {
    const { net, users } = await roles(em());
    const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ consents: [CONSENT], assignee_id: net.storeNorth.id }));
    const res = await withdraw(users.locationUser.key, lead.id);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.withdrawLeadConsent.consents[0].withdrawnAt).toEqual(expect.any(String));
    const log = await gql(t, users.companyAdmin.key, `{ auditLog(where: { action: ["consent.withdrawn"] }) { entries { action targetId details } } }`);
    expect(log.body.errors).toBeUndefined();
    expect(log.body.data.auditLog.entries).toEqual([expect.objectContaining({ action: 'consent.withdrawn', targetId: lead.id })]);
  });

  test('REST POST /v1/leads/{id}/consent_withdrawals: 404 outside the scope, 422 on a bad purpose, 200 with the lead', async () => {
    const { users } = await roles(em());
    const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ consents: [CONSENT] }));
    const path = `/v1/leads/${lead.id}/consent_withdrawals`;
    expect((await api(t, 'post', path, { key: users.otherAdmin.key, body: {} })).status).toBe(404);
    expect((await api(t, 'post', '/v1/leads/nope/consent_withdrawals', { key: users.companyAdmin.key, body: {} })).status).toBe(404);
    for (const purpose of [123, 'marketing', ['contact']]) expect((await api(t, 'post', path, { key: users.companyAdmin.key, body: { purpose } })).status).toBe(422);
    expect((await consentsOf(users.companyAdmin.key, lead.id))[0].withdrawnAt).toBeNull();
    const ok = await api(t, 'post', path, { key: users.companyAdmin.key, body: {} });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(lead.id);
    expect((await consentsOf(users.companyAdmin.key, lead.id))[0].withdrawnAt).toEqual(expect.any(String));
  });
});

describe('consent: a withdrawal stops every mail about the person', () => {
  test('waiting mails are skipped, later assignments queue none, a digest leaves the person out; the others still hear', async () => {
    const { net, users } = await roles(em());
    await gql(t, users.locationUser.key, `mutation { updateNotificationPreferences(input: { leadAssigned: DAILY_DIGEST }) { leadAssigned } }`);
    const quiet = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Quiet Person', consents: [CONSENT], assignee_id: net.storeNorth.id }));
    const loud = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Loud Person', consents: [CONSENT], assignee_id: net.storeNorth.id }));
    await worker.drain();
    const manager = users.storeManager.user.email; // immediate mails
    expect(smtp.to(manager).map((m) => m.mail.subject).sort()).toEqual(['New lead: Loud Person', 'New lead: Quiet Person']);
    smtp.received.length = 0;

    // Withdrawn: the digest line waiting for the North store's user is skipped (logged).
    expect((await withdraw(users.companyAdmin.key, quiet.id)).body.errors).toBeUndefined();
    const sql = (text: string) => em().getConnection().execute(text, [quiet.id]);
    expect(await sql(`select d.kind, l.status, l.error from notification_deliveries d join notification_delivery_log l on l.delivery_id = d.id
                       where d.lead_id = ? and d.status = 'skipped' order by l.id`)).toEqual([
      { kind: 'lead_assigned', status: 'queued', error: null },
      { kind: 'lead_assigned', status: 'skipped', error: 'consent withdrawn' },
    ]);

    // Moved to the South store: nothing is queued about the person, neither for the new store nor the
    // lost-lead notice to the North store's manager, who was told of it before.
    const moved = await api(t, 'patch', `/v1/leads/${quiet.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: net.storeSouth.id } } });
    expect(moved.status).toBe(200);
    await worker.drain();
    expect(await sql(`select kind, status from notification_deliveries where lead_id = ? and status not in ('skipped', 'sent')`)).toEqual([]);
    expect(await sql(`select kind from notification_deliveries where lead_id = ? and kind = 'lead_lost'`)).toEqual([]);
    expect(smtp.received).toHaveLength(0);

    // The digest of the day names the other lead only.
    setNow(new Date(now.getTime() + 25 * 3_600_000));
    await worker.drain();
    const digests = smtp.to(users.locationUser.user.email);
    expect(digests).toHaveLength(1);
    expect(digests[0].mail.text).toContain(loud.id);
    expect(digests[0].mail.text).not.toContain(quiet.id);
    expect(digests[0].mail.text).not.toContain('Quiet Person');
    expect(JSON.stringify(smtp.received.map((r) => [r.mail.text, r.mail.html]))).not.toContain('Quiet Person');

    // A consent given again lifts it.
    setNow(new Date());
    const again = await api(t, 'patch', `/v1/leads/${quiet.id}`, { key: users.companyAdmin.key, body: { lead: { consents: [{ text: 'Yes again', version: 'v4' }], assignee_id: net.storeNorth.id } } });
    expect(again.status).toBe(200);
    await worker.drain();
    expect(smtp.to(manager).map((m) => m.mail.subject)).toContain('New lead: Quiet Person');
  });

  test("the person's confirmation mail is not sent: the waiting one is given up, and none is claimed while withdrawn", async () => {
    const { users } = await roles(em());
    const key = users.companyAdmin.key;
    const quiet = await createLead(t, key, quoteRequest({ consents: [CONSENT] }));
    const loud = await createLead(t, key, quoteRequest({ consents: [CONSENT] }));
    const queue = (leadId: string, email: string) =>
      em().getConnection().execute(`insert into visitor_confirmations (lead_id, email, locale) values (?, ?, 'en')`, [leadId, email]);
    // As the contact form queues them (test/lead-loop/contact-form.test.ts sends the form itself).
    await queue(quiet.id, 'quiet.visitor@example.com');
    await queue(loud.id, 'loud.visitor@example.com');
    expect((await withdraw(key, quiet.id)).body.errors).toBeUndefined();
    // One queued after the withdrawal (a form sent at the same moment) is not claimed either.
    await queue(quiet.id, 'quiet.again@example.com');
    const mailer = new VisitorConfirmationWorker(t.orm, t.config);
    try {
      expect(await mailer.tick()).toBe(1);
    } finally {
      await mailer.stop();
    }
    await smtp.waitFor(() => smtp.received.length > 0);
    expect(smtp.received.map((m) => m.to).flat()).toEqual(['loud.visitor@example.com']);
    expect(await em().getConnection().execute(`select email, sent_at, last_error from visitor_confirmations where lead_id = ? order by email`, [quiet.id])).toEqual([
      { email: 'quiet.again@example.com', sent_at: null, last_error: null },
      { email: 'quiet.visitor@example.com', sent_at: null, last_error: 'consent withdrawn' },
    ]);
  });
});
