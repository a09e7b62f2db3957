import { api } from '../support/app';
import { leadSuite, quoteRequest } from '../support/leads';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

/**
 * Group commit of single creates (src/rest/create-groups.ts, docs/partners.md): concurrent `POST /v1/leads`
 * of one key are written together, one transaction for the group, each answered as its own create. A
 * row's `xmin` names the transaction that wrote it: leads sharing one were committed together.
 */
const s = leadSuite();

const item = (extra: Record<string, unknown> = {}) => quoteRequest(extra).lead;
const post = (key: string, lead: unknown, headers: Record<string, string> = {}) => api(s.t, 'post', '/v1/leads', { key, body: { lead }, headers });

/** The transaction that wrote each lead (by id). */
async function writers(ids: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await s.db.query('select id, xmin::text as tx from leads where id = any($1::uuid[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.tx]));
}

test('concurrent creates of one key: written together, each answered as its own create would be, in one transaction per group', async () => {
  const key = s.r.users.companyAdmin.key;
  const blank = item({ name: '   ' });
  const forbidden = item({ assignee_type: 'CompanyRetailerLocation', assignee_id: s.r.other.storeNorth.id });
  const same = `grouped.same.${Date.now()}@example.com`;
  const bodies = [
    item({ name: 'Grouped 1' }),
    item({ name: 'Grouped 2' }),
    blank,
    item({ name: 'Grouped 3', assignee_type: 'CompanyRetailerLocation', assignee_id: s.r.net.storeNorth.id }),
    forbidden,
    item({ name: 'Same person', emails: [{ email: same }] }),
    item({ name: 'Same person again', emails: [{ email: same.toUpperCase() }], phone_numbers: [{ phone_number: '(503) 555-0177', country_code: 'US' }] }),
    item({ name: 'Grouped 4' }),
  ];
  const answers = await Promise.all(bodies.map((body) => post(key, body)));
  expect(answers.map((a) => a.status)).toEqual([201, 201, 422, 201, 403, 201, 201, 201]);

  // The refused ones are answered byte for byte as when sent alone, and wrote nothing.
  for (const i of [2, 4]) {
    const alone = await post(key, bodies[i]);
    expect({ i, status: alone.status, body: alone.body }).toEqual({ i, status: answers[i].status, body: answers[i].body });
  }
  // A created one is answered as a single create: the same keys, and the lead as stored.
  const single = await post(key, item({ name: 'Alone' }));
  for (const i of [0, 1, 3, 7]) {
    expect(Object.keys(answers[i].body)).toEqual(Object.keys(single.body));
    const shown = await api(s.t, 'get', `/v1/leads/${answers[i].body.id}`, { key });
    expect(shown.body).toEqual(answers[i].body);
  }
  expect(answers[3].body.assignee).toMatchObject({ id: s.r.net.storeNorth.id });
  // The same person twice merges as two separate requests would: one lead, holding both.
  expect(answers[5].body.id).toBe(answers[6].body.id);
  const merged = await api(s.t, 'get', `/v1/leads/${answers[5].body.id}`, { key });
  expect(merged.body.phone_numbers).toHaveLength(1);

  // Eight requests at once: the first written alone, the ones that waited for it together.
  const tx = await writers(answers.filter((a) => a.status === 201).map((a) => a.body.id));
  expect(new Set(tx.values()).size).toBeLessThan(tx.size);
});

test("creates of different keys never share a transaction, and a create with an Idempotency-Key is written alone", async () => {
  const second = await f.userWithKey(s.t.em(), Role.CompanyAdmin, s.r.net.company);
  const keyed = item({ name: 'Keyed' });
  const answers = await Promise.all([
    ...Array.from({ length: 4 }, (_, i) => post(s.r.users.companyAdmin.key, item({ name: `First key ${i}` }))),
    ...Array.from({ length: 4 }, (_, i) => post(second.key, item({ name: `Second key ${i}` }))),
    ...Array.from({ length: 4 }, (_, i) => post(s.r.users.otherAdmin.key, item({ name: `Other company ${i}` }))),
    post(s.r.users.companyAdmin.key, keyed, { 'Idempotency-Key': `grouped-${Date.now()}` }),
  ]);
  expect(answers.map((a) => a.status)).toEqual(Array(13).fill(201));
  const tx = await writers(answers.map((a) => a.body.id));
  const keyOf = (i: number) => (i < 4 ? 'first' : i < 8 ? 'second' : i < 12 ? 'other' : 'keyed');
  const keysByTx = new Map<string, Set<string>>();
  answers.forEach((a, i) => keysByTx.set(tx.get(a.body.id)!, (keysByTx.get(tx.get(a.body.id)!) ?? new Set()).add(keyOf(i))));
  for (const keys of keysByTx.values()) expect(keys.size).toBe(1);
  // Groups did form: some transaction wrote several leads.
  expect(keysByTx.size).toBeLessThan(answers.length);
  expect([...tx.values()].filter((x) => x === tx.get(answers[12].body.id))).toHaveLength(1);
});

test('a create while nothing else of its key runs is written at once, alone', async () => {
  const a = await post(s.r.users.companyAdmin.key, item({ name: 'Idle 1' }));
  const b = await post(s.r.users.companyAdmin.key, item({ name: 'Idle 2' }));
  expect([a.status, b.status]).toEqual([201, 201]);
  const tx = await writers([a.body.id, b.body.id]);
  expect(tx.get(a.body.id)).not.toBe(tx.get(b.body.id));
});

test('hostile inputs in a group (nested too deep, too long, NUL, a number beyond a double) are refused as alone, and the others of the group are written', async () => {
  const key = s.r.users.companyAdmin.key;
  let deep: unknown = 'x';
  for (let i = 0; i < 200; i++) deep = { a: deep };
  const bodies = [
    item({ name: 'Beside hostile 1' }),
    item({ lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: deep }] }),
    item({ name: 'x'.repeat(100_000) }),
    item({ location: { latitude: 1e400 } }),
    item({ emails: [{ email: 'a\u0000b@example.com' }] }),
    item({ name: 'Beside hostile 2' }),
  ];
  const answers = await Promise.all(bodies.map((body) => post(key, body)));
  for (const [i, body] of bodies.entries()) {
    const alone = await post(key, body);
    if (alone.status === 201) expect([i, answers[i].status, Object.keys(answers[i].body)]).toEqual([i, 201, Object.keys(alone.body)]);
    else expect({ i, status: answers[i].status, body: answers[i].body }).toEqual({ i, status: alone.status, body: alone.body });
  }
  expect([answers[0].status, answers[5].status]).toEqual([201, 201]);
  const tx = await writers(answers.filter((a) => a.status === 201).map((a) => a.body.id));
  expect(new Set(tx.values()).size).toBeLessThan(tx.size);
});
