// A lead's first-response timer on the lead (docs/response-times.md "On the lead"): `respondBy` and
// `breached` in GraphQL, additive `respond_by` and `breached` on the REST record; one statement for a
// page of leads (a DataLoader); read by the store's own staff.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { ResponseTimeWorker } from '../../src/modules/response-times/response-time.worker';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
});
afterAll(async () => {
  await t.close();
});
const em = (): EntityManager => t.em();

const LIST = `query($n: Int) { leads(perPage: $n) { nodes { id respondBy breached } } }`;

test('respondBy is the due time at the current store, breached once it passed; a page of leads reads the timers in one statement; store staff read their own', async () => {
  const { net, users } = await roles(em());
  const set = await gql(t, users.companyAdmin.key, 'mutation { updateResponseTimeSettings(input: { firstResponseMinutes: 60, businessHours: false }) { firstResponseMinutes } }');
  expect(set.body.errors).toBeUndefined();
  const leads: any[] = [];
  for (let i = 0; i < 4; i++) leads.push(await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id })));
  const unassigned = await createLead(t, users.companyAdmin.key, quoteRequest());
  const start = Date.now();
  let now = new Date(start);
  const timers = new ResponseTimeWorker(t.orm, { clock: () => now });
  await timers.tick();
  const [{ due_at: due }] = await em().getConnection().execute(`select due_at from lead_response_timers where lead_id = ?`, [leads[0].id]);

  // The store's own staff read their leads' timers.
  const res = await gql(t, users.locationUser.key, LIST, { n: 50 });
  expect(res.body.errors).toBeUndefined();
  const mine = res.body.data.leads.nodes.filter((l: any) => leads.some((x) => x.id === l.id));
  expect(mine).toHaveLength(4);
  expect(mine.find((l: any) => l.id === leads[0].id)).toEqual({ id: leads[0].id, respondBy: new Date(due).toISOString(), breached: false });

  // One statement for the timers of a page, whatever its size.
  const timerStatements = async (n: number) => {
    t.resetStatements();
    const r = await gql(t, users.companyAdmin.key, LIST, { n });
    expect(r.body.errors).toBeUndefined();
    return t.statements.filter((s) => s.includes('lead_response_timers')).length;
  };
  expect(await timerStatements(1)).toBe(1);
  expect(await timerStatements(5)).toBe(1);

  // Past due: breached. The REST record carries both, additively; an unassigned lead has none.
  now = new Date(start + 61 * 60_000);
  await timers.tick();
  const show = await api(t, 'get', `/v1/leads/${leads[0].id}`, { key: users.locationUser.key });
  expect(show.status).toBe(200);
  expect(show.body).toMatchObject({ id: leads[0].id, respond_by: new Date(due).toISOString(), breached: true });
  const bare = await api(t, 'get', `/v1/leads/${unassigned.id}`, { key: users.companyAdmin.key });
  expect(bare.body).toMatchObject({ respond_by: null, breached: false });
});
