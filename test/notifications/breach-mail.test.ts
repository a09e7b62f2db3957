// Breach mails a person keeps reading (docs/notifications.md "Breach mails"): opt-in, a cap per recipient and
// clock hour whose overflow is gathered into one digest at the hour's end, and a daily digest; measured at a
// real SMTP receiver over a backlog that breaches all at once (a short first-response time switched on).
import { gql } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, roles } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';
import { nextDigestAt } from '../../src/modules/notifications/notification.worker';
import { SLA_MAILS_PER_HOUR } from '../../src/modules/notifications/notification.defaults';
import { em, setNow, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

async function ok(key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}


test('a backlog of 8 breaching at once: the opted-in admin gets 5 mails then one digest of 3 at the hour\'s end, the daily reader one digest of 8, those who never chose none', async () => {
  const { net, users } = await roles(em());
  const immediate = users.companyAdmin;
  const daily = await f.userWithKey(em(), Role.CompanyAdmin, net.company);
  const never = await f.userWithKey(em(), Role.CompanyAdmin, net.company); // and the territory manager: never chose
  await ok(immediate.key, `mutation { updateNotificationPreferences(input: { slaBreached: IMMEDIATE }) { slaBreached } }`);
  await ok(daily.key, `mutation { updateNotificationPreferences(input: { slaBreached: DAILY_DIGEST }) { slaBreached } }`);
  expect((await ok(never.key, '{ notificationPreferences { slaBreached } }')).notificationPreferences.slaBreached).toBe('OFF');

  const leads = [];
  for (let i = 0; i < 8; i++) leads.push(await createLead(t, immediate.key, quoteRequest({ name: `Backlog ${i}`, assignee_id: net.storeNorth.id })));
  await worker.drain();
  smtp.received.length = 0;
  // A 2-minute first-response time switched on over the backlog; ten minutes later all 8 have breached.
  await ok(immediate.key, 'mutation { updateResponseTimeSettings(input: { firstResponseMinutes: 2, businessHours: false }) { firstResponseMinutes } }');
  const timers = new ResponseTimeWorker(t.orm, { clock: () => new Date(Date.now() + 10 * 60_000) });
  await timers.tick();
  const [{ n }] = await em().getConnection().execute(`select count(*)::int as n from lead_events where type = 'lead.sla_breached' and lead_id in (${leads.map(() => '?').join(', ')})`, leads.map((l) => l.id));
  expect(n).toBe(8);

  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  setNow(new Date(hour + 10 * 60_000));
  await worker.drain();
  expect(SLA_MAILS_PER_HOUR).toBe(5);
  const first = smtp.to(immediate.user.email);
  expect(first).toHaveLength(5);
  expect(first.every((m) => /^Lead not answered in time: Backlog \d$/.test(m.mail.subject!))).toBe(true);
  expect(smtp.to(daily.user.email)).toHaveLength(0);
  expect(smtp.to(never.user.email)).toHaveLength(0);
  expect(smtp.to(users.territoryManager.user.email)).toHaveLength(0);

  // Later in the hour: nothing more. At the hour's end: the 3 held back, in one digest.
  setNow(new Date(hour + 50 * 60_000));
  await worker.drain();
  expect(smtp.to(immediate.user.email)).toHaveLength(5);
  setNow(new Date(hour + 60 * 60_000 + 1000));
  await worker.drain();
  const all = smtp.to(immediate.user.email);
  expect(all).toHaveLength(6);
  const digest = all[5];
  expect(digest.mail.subject).toBe('3 leads not answered in time');
  expect(digest.mail.text).toContain('These 3 leads were not answered within their first-response time:');
  expect(digest.mail.text!.match(/did not answer this lead within its first-response time/g)).toHaveLength(3);
  const told = new Set([...first.map((m) => /Backlog \d/.exec(m.mail.subject!)![0]), ...digest.mail.text!.match(/Backlog \d/g)!]);
  expect(told.size).toBe(8);

  // The daily reader: one digest of all 8 at its digest hour.
  setNow(nextDigestAt(new Date(hour + 61 * 60_000), t.config.notifications.digestHour, 'UTC'));
  await worker.drain();
  const [day] = smtp.to(daily.user.email);
  expect(day.mail.subject).toBe('8 leads not answered in time');
  expect(smtp.to(never.user.email)).toHaveLength(0);
});
