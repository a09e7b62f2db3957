// SMTP failures are visible (docs/notifications.md "Delivery log"): logged without secrets or bodies, counted
// in /metrics, and each mail's delivery log readable in GraphQL by its company's admin, and no one else.
import request from 'supertest';
import { gql } from '../support/app';
import * as f from '../support/factories';
import { createLead, quoteRequest, roles } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { logger } from '../../src/logger';
import { em, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

const DELIVERIES = `query($where: NotificationDeliveryWhere, $first: Int) { notificationDeliveries(where: $where, first: $first) {
  id kind status recipientId recipientEmail leadId attempts lastError log { status attempt smtpCode error at } } }`;

function mailCount(text: string, outcome: string): number {
  const m = new RegExp(`^leadnet_notification_mails_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

test('a refused (550) mail is bounced, a deferred (450) one retried: the log, the metrics and the logs say so; the admin reads its company\'s log only', async () => {
  const { net, users } = await roles(em());
  const deferred = await f.userWithKey(em(), Role.CompanyLocationUser, net.company, { companyRetailerLocations: [net.storeNorth] });
  smtp.refuse.set(users.locationUser.user.email, 550);
  smtp.refuse.set(deferred.user.email, 450);
  const before = (await request(t.app).get('/metrics')).text;
  const warn = jest.spyOn(logger, 'warn');
  try {
    const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ name: 'Secret Body Text', assignee_id: net.storeNorth.id }));
    await worker.drain(3);

    const res = await gql(t, users.companyAdmin.key, DELIVERIES, { where: { leadId: lead.id } });
    expect(res.body.errors).toBeUndefined();
    const list = res.body.data.notificationDeliveries;
    const bounced = list.find((d: any) => d.recipientId === users.locationUser.user.id);
    expect(bounced).toMatchObject({ kind: 'lead_assigned', status: 'FAILED', attempts: 1, leadId: lead.id });
    expect(bounced.log.map((l: any) => [l.status, l.smtpCode])).toEqual([['QUEUED', null], ['BOUNCED', 550]]);
    const retried = list.find((d: any) => d.recipientId === deferred.user.id);
    expect(retried).toMatchObject({ status: 'PENDING', attempts: 1 });
    expect(retried.log.map((l: any) => [l.status, l.smtpCode])).toEqual([['QUEUED', null], ['RETRIED', 450]]);
    // The retailer's store manager is not a user of the company: its mail is not in the company's log.
    expect(list.some((d: any) => d.recipientId === users.storeManager.user.id)).toBe(false);
    expect(smtp.to(users.storeManager.user.email)).toHaveLength(1);
    // Filters.
    const failed = await gql(t, users.companyAdmin.key, DELIVERIES, { where: { status: ['FAILED'], recipientId: users.locationUser.user.id } });
    expect(failed.body.data.notificationDeliveries.map((d: any) => d.id)).toEqual([bounced.id]);

    // Logged, with ids, the code and the first line of the error: no address of the recipient as a field, no body.
    const logged = warn.mock.calls.filter(([, msg]) => typeof msg === 'string' && msg.startsWith('notification mail '));
    expect(logged.map(([, msg]) => msg).sort()).toEqual(['notification mail bounced', 'notification mail retried']);
    for (const [fields] of logged) {
      expect(fields).toMatchObject({ delivery: expect.any(String), smtpCode: expect.any(Number), status: expect.any(String) });
      expect(JSON.stringify(fields)).not.toContain('Secret Body Text');
      expect(JSON.stringify(fields)).not.toContain('s'.repeat(40));
    }

    // Counted in /metrics.
    const after = (await request(t.app).get('/metrics')).text;
    expect(mailCount(after, 'bounced') - mailCount(before, 'bounced')).toBe(1);
    expect(mailCount(after, 'retried') - mailCount(before, 'retried')).toBe(1);
    expect(mailCount(after, 'sent') - mailCount(before, 'sent')).toBe(1);
  } finally {
    warn.mockRestore();
    smtp.refuse.clear();
  }

  // Nobody else: a territory manager, store staff (403); another company's admin sees none of these.
  for (const key of [users.territoryManager.key, users.locationUser.key, users.retailerAdmin.key]) {
    expect((await gql(t, key, DELIVERIES)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  }
  const theirs = await gql(t, users.otherAdmin.key, DELIVERIES, { first: 200 });
  expect(theirs.body.data.notificationDeliveries.some((d: any) => [users.locationUser.user.id, deferred.user.id].includes(d.recipientId))).toBe(false);
  expect((await gql(t, users.companyAdmin.key, DELIVERIES, { first: 500 })).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
});
