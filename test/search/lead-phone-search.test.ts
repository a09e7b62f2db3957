// Leads are found by phone numbers as people type them (issue 12): national and international formats,
// the API's own `formatted` value, and partial numbers of 4+ digits.
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
let portland: { id: string; phone_numbers: Array<{ formatted: string }> };
let london: { id: string; phone_numbers: Array<{ formatted: string }> };
let other: { id: string };

const found = async (q: string) => {
  const res = await api(t, 'get', `/v1/leads?q=${encodeURIComponent(q)}`, { key: r.users.companyAdmin.key });
  expect(res.status).toBe(200);
  return res.body.leads.map((l: { id: string }) => l.id).sort();
};

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  const key = r.users.companyAdmin.key;
  portland = await createLead(t, key, quoteRequest({ phone_numbers: [{ phone_number: '(503) 555-0100', country_code: 'US' }] }));
  other = await createLead(t, key, quoteRequest({ phone_numbers: [{ phone_number: '206-555-0199', country_code: 'US' }] }));
  london = await createLead(t, key, quoteRequest({ phone_numbers: [{ phone_number: '020 7946 0958', country_code: 'GB' }] }));
});
afterAll(() => t.close());

test.each([
  ['503-555-0100'],
  ['(503) 555-0100'],
  ['503.555.0100'],
  ['5035550100'],
  ['+15035550100'],
  ['1 (503) 555-0100'],
  ['555-0100'],
  ['50355'],
  ['0100'],
])('%s finds the Portland lead and only it', async (q) => {
  expect(await found(q)).toEqual([portland.id]);
});

test("the API's own formatted value finds its lead", async () => {
  expect(portland.phone_numbers[0].formatted).toBe('+1 503 555 0100');
  expect(await found(portland.phone_numbers[0].formatted)).toEqual([portland.id]);
  expect(await found(london.phone_numbers[0].formatted)).toEqual([london.id]);
  expect(await found('7946 0958')).toEqual([london.id]);
});

test('digits of different numbers do not match one another', async () => {
  expect(await found('503-555-0199')).toEqual([]);
  expect(await found('5551')).toEqual([]);
  expect(await found('5550')).toEqual([other.id, portland.id].sort());
  expect(await found('555-01')).toEqual([other.id, portland.id].sort());
});

test('filters on phone_numbers keep matching the stored E.164 value, over REST and GraphQL', async () => {
  const res = await api(t, 'get', `/v1/leads?opts[where][phone_numbers]=${encodeURIComponent('+15035550100')}`, { key: r.users.companyAdmin.key });
  expect(res.body.leads.map((l: { id: string }) => l.id)).toEqual([portland.id]);
  const byGraphql = await gql(t, r.users.companyAdmin.key, `{ leads(q: "(206) 555-0199") { nodes { id } } }`);
  expect(byGraphql.body.data.leads.nodes).toEqual([{ id: other.id }]);
});
