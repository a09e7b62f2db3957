// Each mail tells the assignment it is about, as it was (docs/notifications.md "What a mail says"): its own
// store, time and reason, even when sent after the lead moved on; an escalated lead's mail says so.
import { api, gql } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { formatAt } from '../../src/modules/notifications/notification.mail';
import { em, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

async function optIn(key: string) {
  const res = await gql(t, key, `mutation { updateNotificationPreferences(input: { leadAssigned: IMMEDIATE }) { leadAssigned } }`);
  expect(res.body.errors).toBeUndefined();
}

test('two mails for two stores of one lead, sent after it moved on, each name their own store and time', async () => {
  const { net, users } = await roles(em());
  await sql(`update company_retailer_locations set name = 'North Shop' where id = ?`, [net.storeNorth.id]);
  await sql(`update company_retailer_locations set name = 'South Shop' where id = ?`, [net.storeSouth.id]);
  // The retailer's admin sees both stores and opts in: it hears of both assignments.
  await optIn(users.retailerAdmin.key);
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Moving Lead', assignee_id: net.storeNorth.id }));
  const first = new Date(Date.now() - 3 * 3_600_000);
  const second = new Date(Date.now() - 3_600_000);
  await sql(`update lead_events set occurred_at = ? where lead_id = ? and type = 'lead.assigned'`, [first, lead.id]);
  // North's assignment is fanned out (its deliveries made) while the lead is there; nothing is sent yet.
  await worker.prepare();
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: net.storeSouth.id } } })).status).toBe(200);
  await sql(`update lead_events set occurred_at = ? where lead_id = ? and type = 'lead.assigned' and data->>'to_id' = ?`, [second, lead.id, net.storeSouth.id]);
  // Both are sent now, with the lead at South.
  await worker.drain();
  const mails = smtp.to(users.retailerAdmin.user.email).map((m) => m.mail.text!);
  expect(mails).toHaveLength(2);
  const north = mails.find((m) => m.includes('North Shop'))!;
  const south = mails.find((m) => m.includes('South Shop'))!;
  expect(north).toContain(`A new lead was assigned to North Shop on ${formatAt('en', first)}.`);
  expect(north).not.toContain('South Shop');
  expect(south).toContain(`A lead was reassigned from North Shop to South Shop on ${formatAt('en', second)}.`);
  expect(north).not.toEqual(south);
});

test("a lead reassigned after a breach: the new store's mail says it was escalated, in the subject too; French reads French", async () => {
  const { net, users } = await roles(em());
  await sql(`update company_retailer_locations set name = 'North Shop' where id = ?`, [net.storeNorth.id]);
  await sql(`update company_retailer_locations set name = 'South Shop' where id = ?`, [net.storeSouth.id]);
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Late Lead', assignee_id: net.storeNorth.id }));
  await worker.drain();
  smtp.received.length = 0;
  // What the response-time worker writes when it escalates (src/modules/response-times/response-time.repository.ts reassignLead).
  await sql(`update leads set assignee_id = ? where id = ?`, [net.storeSouth.id, lead.id]);
  await sql(`insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Assignment', ?::jsonb)`, [
    lead.id, JSON.stringify({ from_id: net.storeNorth.id, to_id: net.storeSouth.id, reason: 'sla_breached', rule: 'nearest' }),
  ]);
  await sql(`update users set locale = 'fr' where id = ?`, [users.salesAssociate.user.id]);
  await worker.drain();
  const [mail] = smtp.to(users.salesAssociate.user.email);
  expect(mail.mail.subject).toBe('Contact escaladé : Late Lead');
  expect(mail.mail.text).toContain("Escaladé : North Shop n'a pas répondu à ce contact dans le délai de première réponse, il a donc été réattribué à South Shop le ");
});
