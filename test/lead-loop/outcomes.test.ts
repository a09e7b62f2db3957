// Outcomes (docs/lead-loop.md "Outcomes"): REST and GraphQL, who may record one, validation, events,
// the status change it makes, and the REST record's `outcome` object.
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
});
afterAll(async () => {
  await t.close();
});
const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params);

const RECORD = `mutation($id: ID!, $input: LeadOutcomeInput!) {
  recordLeadOutcome(id: $id, input: $input) { id status outcome { result amountMinor currency lostReason closedOn recordedAt recordedById } } }`;

test('the store records won with an amount over REST: the show answers it, the status follows, one event and activity each, the timer is answered', async () => {
  const { net, users } = await roles(em());
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  expect(lead.outcome).toBeNull();
  expect((await api(t, 'get', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key })).body.outcome).toBeNull();

  const res = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, {
    key: users.locationUser.key,
    body: { result: 'won', amount_minor: 129_900, currency: 'usd', closed_on: '2026-11-30' },
  });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('Won');
  expect(res.body.outcome).toMatchObject({
    result: 'won', amount_minor: 129_900, currency: 'USD', lost_reason: null, closed_on: '2026-11-30', recorded_by_id: users.locationUser.user.id,
  });
  const shown = await api(t, 'get', `/v1/leads/${lead.id}`, { key: users.companyAdmin.key });
  expect(shown.body.outcome).toEqual(res.body.outcome);

  const events = await sql(`select type, data from lead_events where lead_id = ? order by seq`, [lead.id]);
  const types = events.map((e: any) => e.type);
  expect(types.filter((x: string) => x === 'lead.status_changed')).toHaveLength(1);
  expect(types.indexOf('lead.outcome_recorded')).toBeGreaterThan(types.indexOf('lead.status_changed'));
  expect(events.find((e: any) => e.type === 'lead.outcome_recorded')!.data).toEqual({
    result: 'won', amount_minor: 129_900, currency: 'USD', lost_reason: null, closed_on: '2026-11-30',
  });
  const activities = await sql(`select type, data from lead_activities where lead_id = ? order by seq`, [lead.id]);
  expect(activities.filter((a: any) => a.type === 'LeadActivity::Outcome')).toHaveLength(1);
  expect(activities.find((a: any) => a.type === 'LeadActivity::StatusChange')!.data).toEqual({ from: 'New', to: 'Won' });
  const [timer] = await sql(`select answered_at from lead_response_timers where lead_id = ?`, [lead.id]);
  expect(timer.answered_at).not.toBeNull();

  // Recording again replaces the outcome, and is a new event (the status goes from Won to Lost).
  const again = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, { key: users.locationUser.key, body: { result: 'LOST', lost_reason: 'Bought online' } });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ status: 'Lost', outcome: { result: 'lost', amount_minor: null, currency: null, lost_reason: 'Bought online' } });
  expect(again.body.outcome.closed_on).toBe(new Date().toISOString().slice(0, 10));
  expect((await sql(`select count(*)::int as n from lead_outcomes where lead_id = ?`, [lead.id]))[0].n).toBe(1);
  expect((await sql(`select count(*)::int as n from lead_events where lead_id = ? and type = 'lead.outcome_recorded'`, [lead.id]))[0].n).toBe(2);
});

test('recording the status the lead already has changes no status (any case): no status_changed event', async () => {
  const { net, users } = await roles(em());
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id, status: 'won' }));
  const res = await gql(t, users.companyAdmin.key, RECORD, { id: lead.id, input: { result: 'WON', amountMinor: 5, currency: 'EUR' } });
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.recordLeadOutcome).toMatchObject({ status: 'won', outcome: { result: 'won', amountMinor: 5, currency: 'EUR', recordedById: users.companyAdmin.user.id } });
  const changed = await sql(`select count(*)::int as n from lead_events where lead_id = ? and type = 'lead.status_changed'`, [lead.id]);
  expect(changed[0].n).toBe(0);
  // A company admin is not the store: its outcome does not answer the store's timer.
  const [timer] = await sql(`select answered_at from lead_response_timers where lead_id = ?`, [lead.id]);
  expect(timer.answered_at).toBeNull();
});

test("who may record: the store's users and their keys, the owner's admins; others who see the lead 403, the rest 404", async () => {
  const { net, users } = await roles(em());
  const expected: Record<string, number> = {
    companyAdmin: 200, locationUser: 200, retailerAdmin: 200, storeManager: 200,
    territoryManager: 403, retailerManager: 403, operator: 403,
    salesAssociate: 404, otherAdmin: 404,
  };
  for (const [role, status] of Object.entries(expected)) {
    const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
    const who = (users as any)[role];
    const res = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, { key: who.key, body: { result: 'lost' } });
    expect([role, res.status]).toEqual([role, status]);
    if (status !== 200) {
      expect(res.body.errors ?? res.body.error ?? res.body).toBeTruthy();
      expect((await sql(`select count(*)::int as n from lead_outcomes where lead_id = ?`, [lead.id]))[0].n).toBe(0);
      const g = await gql(t, who.key, RECORD, { id: lead.id, input: { result: 'LOST' } });
      expect([role, g.body.errors[0].extensions.code]).toEqual([role, status === 403 ? 'FORBIDDEN' : 'NOT_FOUND']);
    }
  }
  // A lead with no store: only the owner's admins.
  const unassigned = await createLead(t, users.companyAdmin.key, quoteRequest());
  expect((await api(t, 'post', `/v1/leads/${unassigned.id}/outcome`, { key: users.territoryManager.key, body: { result: 'won' } })).status).toBe(404);
  expect((await api(t, 'post', `/v1/leads/${unassigned.id}/outcome`, { key: users.companyAdmin.key, body: { result: 'won' } })).status).toBe(200);
  expect((await api(t, 'post', `/v1/leads/00000000-0000-4000-8000-000000000000/outcome`, { key: users.companyAdmin.key, body: { result: 'won' } })).status).toBe(404);
});

test('validation: 422 in the contract error shape on the attribute; nothing stored', async () => {
  const { net, users } = await roles(em());
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ result: 'won', amount_minor: 12.5, currency: 'USD' }, 'amount_minor'],
    [{ result: 'won', amount_minor: '1200', currency: 'USD' }, 'amount_minor'],
    [{ result: 'won', amount_minor: -1, currency: 'USD' }, 'amount_minor'],
    [{ result: 'won', amount_minor: 2 ** 53, currency: 'USD' }, 'amount_minor'],
    [{ result: 'won', amount_minor: 100, currency: 'XYZ' }, 'currency'],
    [{ result: 'won', amount_minor: 100 }, 'currency'],
    [{ result: 'won', closed_on: '2026-02-30' }, 'closed_on'],
    [{ result: 'won', closed_on: '30/11/2026' }, 'closed_on'],
    [{ result: 'maybe' }, 'result'],
    [{}, 'result'],
    [{ result: 'lost', lost_reason: 'x'.repeat(501) }, 'lost_reason'],
  ];
  for (const [body, field] of cases) {
    const res = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, { key: users.locationUser.key, body });
    expect([body, res.status]).toEqual([body, 422]);
    expect([body, res.body.details.some((d: any) => d.field === field), Object.keys(res.body.errors)]).toEqual([body, true, expect.arrayContaining([field])]);
  }
  expect((await sql(`select count(*)::int as n from lead_outcomes where lead_id = ?`, [lead.id]))[0].n).toBe(0);
  const g = await gql(t, users.locationUser.key, RECORD, { id: lead.id, input: { result: 'WON', amountMinor: 1.5, currency: 'USD' } });
  expect(g.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  const big = await api(t, 'post', `/v1/leads/${lead.id}/outcome`, {
    key: users.locationUser.key, body: { result: 'won', amount_minor: Number.MAX_SAFE_INTEGER, currency: 'JPY' },
  });
  expect(big.status).toBe(200);
  expect(big.body.outcome.amount_minor).toBe(Number.MAX_SAFE_INTEGER);
});

test("a status update through the API by the store's integration (its user's API key) is the store's first response", async () => {
  const { net, users } = await roles(em());
  const lead = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  const other = await createLead(t, users.companyAdmin.key, quoteRequest({ assignee_id: net.storeNorth.id }));
  expect((await api(t, 'patch', `/v1/leads/${other.id}`, { key: users.companyAdmin.key, body: { lead: { status: 'Contacted' } } })).status).toBe(200);
  expect((await api(t, 'patch', `/v1/leads/${lead.id}`, { key: users.locationUser.key, body: { lead: { status: 'Contacted' } } })).status).toBe(200);
  const timers = await sql(`select lead_id, answered_at from lead_response_timers where lead_id in (?, ?)`, [lead.id, other.id]);
  const answered = Object.fromEntries(timers.map((r: any) => [r.lead_id, r.answered_at !== null]));
  expect(answered).toEqual({ [lead.id]: true, [other.id]: false });
});

test("the lead list's statements stay flat with outcomes: one page of 1 lead and of 6 leads send the same number", async () => {
  // A company of its own: its admin's list holds exactly these leads.
  const { net, users } = await roles(em());
  const admin = users.companyAdmin.key;
  const made = [];
  for (let i = 0; i < 6; i++) made.push(await createLead(t, admin, quoteRequest({ assignee_id: net.storeNorth.id })));
  for (const lead of made.slice(0, 3)) {
    expect((await api(t, 'post', `/v1/leads/${lead.id}/outcome`, { key: admin, body: { result: 'won', amount_minor: 100, currency: 'USD' } })).status).toBe(200);
  }
  const count = async (perPage: number) => {
    await t.settle();
    t.resetStatements();
    const res = await api(t, 'get', `/v1/leads?opts[per_page]=${perPage}`, { key: admin });
    expect(res.status).toBe(200);
    expect(res.body.leads).toHaveLength(perPage);
    expect(res.body.leads.filter((l: any) => l.outcome !== null).length).toBeLessThanOrEqual(3);
    return t.statements.length;
  };
  expect(await count(6)).toBe(await count(1));
  const page = await api(t, 'get', `/v1/leads?opts[per_page]=6`, { key: admin });
  expect(page.body.leads.filter((l: any) => l.outcome?.result === 'won')).toHaveLength(3);
});
