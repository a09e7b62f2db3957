import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { Lead } from '../../src/modules/lead/lead.entity';
import { Email } from '../../src/modules/contact/email.entity';
import { PhoneNumber } from '../../src/modules/contact/phone-number.entity';
import { LeadActivity } from '../../src/modules/lead/lead-activity.entity';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** PRODUCT.md section 5: concurrent creates of the same person never produce two leads. */
describe('concurrent creates of one person', () => {
  test('twenty parallel POSTs with the same email give one lead, every answer 201 with its id', async () => {
    const em = t.em();
    const acme = await f.company(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(t, 'post', '/v1/leads', {
          key: admin.key,
          // The same address, spelled differently each time.
          body: quoteRequest({ name: `Racer ${i}`, emails: [{ email: i % 2 ? ' RACE@Example.com' : 'race@example.com ' }] }),
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(responses.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    const check = t.em();
    expect(await check.count(Lead, { ownerCompany: acme.id })).toBe(1);
    expect(await check.count(Email, { lead: id })).toBe(1);
    // Every submission's activity, and one merge note for each of the 19 that merged.
    expect(await check.count(LeadActivity, { lead: id, type: { $ne: 'LeadActivity::Note' } })).toBe(20);
    expect(await check.count(LeadActivity, { lead: id, type: 'LeadActivity::Note' })).toBe(19);
  });

  test('parallel POSTs sharing a phone number in different formats merge too', async () => {
    const em = t.em();
    const acme = await f.company(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const formats = ['503-555-0190', '(503) 555-0190', '+1 503 555 0190', '5035550190'];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(t, 'post', '/v1/leads', { key: admin.key, body: quoteRequest({ emails: undefined, phone_numbers: [{ phone_number: formats[i % 4] }] }) }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await t.em().count(Lead, { ownerCompany: acme.id })).toBe(1);
    expect(await t.em().count(PhoneNumber, { lead: responses[0].body.id })).toBe(1);
  });

  test('parallel POSTs of different people are not serialized into one', async () => {
    const em = t.em();
    const acme = await f.company(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const responses = await Promise.all(Array.from({ length: 10 }, () => api(t, 'post', '/v1/leads', { key: admin.key, body: quoteRequest() })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(10);
  });

  test('parallel status changes of one lead form one unbroken chain of StatusChange activities', async () => {
    const em = t.em();
    const acme = await f.company(em);
    const admin = await f.userWithKey(em, Role.CompanyAdmin, acme);
    const lead = (await api(t, 'post', '/v1/leads', { key: admin.key, body: quoteRequest() })).body;
    const statuses = Array.from({ length: 10 }, (_, i) => `Step ${i}`);
    const responses = await Promise.all(statuses.map((status) => api(t, 'patch', `/v1/leads/${lead.id}`, { key: admin.key, body: { lead: { status } } })));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    const final = (await api(t, 'get', `/v1/leads/${lead.id}`, { key: admin.key })).body;
    const changes = final.lead_activities.filter((a: any) => a.type === 'LeadActivity::StatusChange').reverse();
    expect(changes).toHaveLength(10);
    expect(changes[0].data.from).toBe('New');
    for (let i = 1; i < changes.length; i++) expect(changes[i].data.from).toBe(changes[i - 1].data.to);
    expect(changes[9].data.to).toBe(final.status);
    expect(new Set(changes.map((c: any) => c.data.to))).toEqual(new Set(statuses));
  });
});

