// Nobody is mailed about their own action, and a reminder goes out before a breach, once per timer
// (docs/notifications.md "Reminders"), at a real SMTP receiver with the workers' clocks moved.
import { api, gql } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';
import { em, setNow, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

test('a store user who assigns a lead to its own store is not mailed about it; its colleagues are', async () => {
  const { net, users } = await roles(em());
  const res = await api(t, 'post', '/v1/leads', { key: users.locationUser.key, body: quoteRequest({ name: 'Walk In', assignee_id: net.storeNorth.id }) });
  expect(res.status).toBe(201);
  await worker.drain();
  expect(smtp.to(users.locationUser.user.email)).toHaveLength(0);
  expect(smtp.to(users.storeManager.user.email).map((m) => m.mail.subject)).toEqual(['New lead: Walk In']);
});

test("a reminder at 75% of the first-response time, once per timer, to the store's staff; a new assignment's timer gets its own", async () => {
  const { net, users } = await roles(em());
  const set = await gql(t, users.companyAdmin.key, 'mutation { updateResponseTimeSettings(input: { firstResponseMinutes: 60, businessHours: false }) { firstResponseMinutes } }');
  expect(set.body.errors).toBeUndefined();
  const start = Date.now();
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Waiting Lead', assignee_id: net.storeNorth.id }));
  await new ResponseTimeWorker(t.orm, { clock: () => new Date(start) }).tick();
  await worker.drain();
  smtp.received.length = 0;
  const reminders = () => smtp.received.filter((m) => /^Reminder: /.test(m.mail.subject!));

  setNow(new Date(start + 40 * 60_000));
  await worker.drain();
  expect(reminders()).toHaveLength(0);
  setNow(new Date(start + 46 * 60_000));
  await worker.drain();
  expect(reminders().flatMap((m) => m.to).sort()).toEqual([users.locationUser.user.email, users.storeManager.user.email].sort());
  expect(reminders()[0].mail.subject).toBe('Reminder: answer this lead in time: Waiting Lead');
  expect(reminders()[0].mail.text).toMatch(/has not answered this lead yet\. Its first-response time runs out on /);
  setNow(new Date(start + 55 * 60_000));
  await worker.drain();
  expect(reminders()).toHaveLength(2);

  // Moved to South: a new timer, reminded of in its turn (to South's staff).
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key, body: { lead: { assignee_id: net.storeSouth.id } } })).status).toBe(200);
  const moved = Date.now();
  await new ResponseTimeWorker(t.orm, { clock: () => new Date(moved) }).tick();
  smtp.received.length = 0;
  setNow(new Date(moved + 46 * 60_000));
  await worker.drain();
  expect(reminders().flatMap((m) => m.to)).toEqual([users.salesAssociate.user.email]);
});
