// The first start with SMTP configured does not mail the demo network's seeded leads (docs/notifications.md
// "The demo seed"); leads made afterwards are mailed as ever.
import { createLead, quoteRequest } from '../support/leads';
import { seedDemo } from '../../src/modules/demo/demo-seed';
import { modules } from '../../src/modules';
import { em, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

test('seeding queues no notification and sends no mail; a lead made after it is mailed to its store', async () => {
  const seed = (await seedDemo(em(), modules))!;
  expect(seed.leads).toBeGreaterThan(100);
  const [{ n }] = await em().getConnection().execute(`select count(*)::int as n from notification_events`);
  expect(n).toBe(0);
  await worker.drain();
  expect(smtp.received).toHaveLength(0);
  const [{ d }] = await em().getConnection().execute(`select count(*)::int as d from notification_deliveries`);
  expect(d).toBe(0);

  // Not quiet afterwards: the seeded store staff hear of a new lead.
  const admin = seed.users.find((u) => u.role === 'company_admin')!;
  await createLead(t, admin.apiKey, quoteRequest({ assignee_id: seed.stores[0].companyRetailerLocationId }));
  await worker.drain();
  expect(smtp.received.length).toBeGreaterThan(0);
});
