// A company admin sets a team member's notification settings and language (docs/notifications.md
// "Settings"), as the notification policy decides: its own company's users only.
import { randomUUID } from 'node:crypto';
import { gql } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { em, smtp, t, useNotificationFixture, worker } from './notification-fixture';

useNotificationFixture();

const SET = `mutation($userId: ID, $input: NotificationPreferencesInput!) { updateNotificationPreferences(userId: $userId, input: $input) { email locale leadAssigned } }`;
const GET = `query($userId: ID) { notificationPreferences(userId: $userId) { email locale leadAssigned } }`;
const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

test("the company admin changes a store user's language and lead mails; others may not; another organisation's user is not found", async () => {
  const { net, users } = await roles(em());
  const member = users.locationUser;
  const set = await gql(t, users.companyAdmin.key, SET, { userId: member.user.id, input: { locale: 'FR', leadAssigned: 'DAILY_DIGEST' } });
  expect(set.body.errors).toBeUndefined();
  expect(set.body.data.updateNotificationPreferences).toEqual({ email: member.user.email, locale: 'FR', leadAssigned: 'DAILY_DIGEST' });
  // The member reads its own as the admin left them; the admin reads them too.
  expect((await gql(t, member.key, GET)).body.data.notificationPreferences).toEqual({ email: member.user.email, locale: 'FR', leadAssigned: 'DAILY_DIGEST' });
  expect((await gql(t, users.companyAdmin.key, GET, { userId: member.user.id })).body.data.notificationPreferences.locale).toBe('FR');

  // Not a company admin: 403 for a colleague.
  expect(code(await gql(t, users.territoryManager.key, SET, { userId: member.user.id, input: { leadAssigned: 'OFF' } }))).toBe('FORBIDDEN');
  expect(code(await gql(t, member.key, SET, { userId: users.companyAdmin.user.id, input: { leadAssigned: 'IMMEDIATE' } }))).toBe('FORBIDDEN');
  expect(code(await gql(t, member.key, GET, { userId: users.companyAdmin.user.id }))).toBe('FORBIDDEN');
  // Another company's admin, a retailer's user, nobody: not found.
  expect(code(await gql(t, users.otherAdmin.key, SET, { userId: member.user.id, input: { leadAssigned: 'OFF' } }))).toBe('NOT_FOUND');
  expect(code(await gql(t, users.companyAdmin.key, SET, { userId: users.retailerAdmin.user.id, input: { leadAssigned: 'OFF' } }))).toBe('NOT_FOUND');
  expect(code(await gql(t, users.companyAdmin.key, GET, { userId: randomUUID() }))).toBe('NOT_FOUND');
  expect((await gql(t, member.key, GET)).body.data.notificationPreferences.leadAssigned).toBe('DAILY_DIGEST');

  // The change holds: a new lead waits for the member's digest, the store manager hears now.
  await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  await worker.drain();
  expect(smtp.to(member.user.email)).toHaveLength(0);
  expect(smtp.to(users.storeManager.user.email)).toHaveLength(1);
});
