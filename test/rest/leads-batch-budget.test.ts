import { api } from '../support/app';
import { leadSuite, quoteRequest } from '../support/leads';

/**
 * The process's budget of lead batch items in flight (LEAD_BATCH_ITEMS_IN_FLIGHT, docs/partners.md
 * "Batches"): a batch that does not fit waits for the one before it to finish, then is written whole.
 */
const s = leadSuite({ LEAD_BATCH_ITEMS_IN_FLIGHT: '2' });

const item = (email: string) => ({ ...quoteRequest().lead, emails: [{ email }] });
const batch = (...emails: string[]) => api(s.t, 'post', '/v1/leads/batch', { key: s.r.users.companyAdmin.key, body: { leads: emails.map(item) } });
const stored = async (email: string) => (await s.db.query('select count(*)::int as n from emails where email = $1', [email])).rows[0].n;
const until = async (check: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((res) => setTimeout(res, 50));
  }
};
/** The backends waiting on an advisory lock: a batch stopped on a duplicate lock this suite holds. */
const WAITING = `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%pg_advisory_xact_lock%'`;

/**
 * A first batch that takes the whole budget (2 items) and stops inside its transaction: this suite's
 * connection holds the duplicate lock of its first email (`held`) until `release()`.
 */
async function heldBatch(name: string) {
  const held = `${name}.held.${Date.now()}@example.com`;
  const lockKey = `lead:${s.r.net.company.id}:email:${held}`;
  await s.db.query('select pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
  const first = batch(held, `${name}.first.${Date.now()}@example.com`);
  await until(async () => (await s.db.query(WAITING)).rows.length === 1);
  return { held, first, release: () => s.db.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]) };
}
afterEach(() => s.db.query('select pg_advisory_unlock_all()'));

test('a batch waits while the budget is taken, then is written; other requests go on meanwhile', async () => {
  const { held, first, release } = await heldBatch('held');
  const secondEmail = `second.${Date.now()}@example.com`;
  let secondDone = false;
  const second = batch(secondEmail).then((res) => ((secondDone = true), res));
  // A single create does not count against the batches' budget: it answers while they wait.
  const single = await api(s.t, 'post', '/v1/leads', { key: s.r.users.companyAdmin.key, body: quoteRequest() });
  expect(single.status).toBe(201);
  await new Promise((res) => setTimeout(res, 300));
  expect(secondDone).toBe(false);
  expect(await stored(secondEmail)).toBe(0);

  await release();
  const [a, b] = await Promise.all([first, second]);
  expect(a.status).toBe(200);
  expect(a.body.results.map((x: any) => x.status)).toEqual([201, 201]);
  expect(b.status).toBe(200);
  expect(b.body.results.map((x: any) => x.status)).toEqual([201]);
  expect(await stored(secondEmail)).toBe(1);
  expect(await stored(held)).toBe(1);
});

test("a batch whose connection dies half-way hands its turn back: another tenant's batch waiting behind it is written, nothing of the first", async () => {
  const other = `crash.other.${Date.now()}@example.com`;
  const { held, first } = await heldBatch('crash');
  let secondDone = false;
  const second = api(s.t, 'post', '/v1/leads/batch', { key: s.r.users.otherAdmin.key, body: { leads: [item(other)] } }).then((res) => ((secondDone = true), res));
  await new Promise((res) => setTimeout(res, 300));
  expect(secondDone).toBe(false);

  await s.db.query(`select pg_terminate_backend(pid) from (${WAITING}) w`);
  const [a, b] = await Promise.all([first, second]);
  expect(a.status).toBe(503);
  expect(await stored(held)).toBe(0);
  expect(b.status).toBe(200);
  expect(b.body.results.map((x: any) => x.status)).toEqual([201]);
  expect(await stored(other)).toBe(1);
});

test('with an Idempotency-Key, a batch waiting its turn holds no database connection; its answer is stored and replays', async () => {
  const keyedEmail = `keyed.${Date.now()}@example.com`;
  const { first, release } = await heldBatch('keyed');
  const key = `batch-turn-${Date.now()}`;
  const body = { leads: [item(keyedEmail)] };
  const send = () => api(s.t, 'post', '/v1/leads/batch', { key: s.r.users.companyAdmin.key, body, headers: { 'Idempotency-Key': key } });
  let keyedDone = false;
  const keyed = send().then((res) => ((keyedDone = true), res));
  // Waiting for its turn, the keyed batch has not opened its key's transaction: no connection sits idle in
  // a transaction (taken after the key, the turn would keep one there, in a savepoint, for the whole wait).
  const idleInTransaction = `select count(*)::int as n from pg_stat_activity where datname = current_database()
    and state = 'idle in transaction' and state_change < clock_timestamp() - interval '100 milliseconds'`;
  await new Promise((res) => setTimeout(res, 300));
  for (let i = 0; i < 3; i++) {
    expect((await s.db.query(idleInTransaction)).rows[0].n).toBe(0);
    await new Promise((res) => setTimeout(res, 50));
  }
  expect(keyedDone).toBe(false);

  await release();
  const [a, b] = await Promise.all([first, keyed]);
  expect(a.status).toBe(200);
  expect(b.status).toBe(200);
  expect(b.body.results.map((x: any) => x.status)).toEqual([201]);
  const replay = await send();
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toEqual(b.body);
  expect(await stored(keyedEmail)).toBe(1);
});

test('while the budget is taken: malformed batches answer 422 at once, and a keyed batch retried as it waits is written once', async () => {
  const retried = `abuse.retried.${Date.now()}@example.com`;
  const { first, release } = await heldBatch('abuse');
  // Refused before any turn is waited for: a body without the list, an empty one, one over 500, with or without a key.
  const post = (body: unknown, headers: Record<string, string> = {}) => api(s.t, 'post', '/v1/leads/batch', { key: s.r.users.companyAdmin.key, body, headers });
  const refused = await Promise.all([
    post({ lead: item('x@example.com') }),
    post({ leads: [] }, { 'Idempotency-Key': `abuse-empty-${Date.now()}` }),
    post({ leads: Array.from({ length: 501 }, (_, i) => item(`over${i}@example.com`)) }, { 'Idempotency-Key': `abuse-over-${Date.now()}` }),
  ]);
  expect(refused.map((res) => [res.status, Object.values(res.body.errors ?? {}).flat().length > 0])).toEqual([[422, true], [422, true], [422, true]]);

  // The same keyed batch twice (a client retrying on its own timeout): both wait; one writes, the other
  // answers as a retry does (409 while the first runs, or its stored answer).
  const key = `abuse-retry-${Date.now()}`;
  const body = { leads: [item(retried)] };
  const send = () => api(s.t, 'post', '/v1/leads/batch', { key: s.r.users.companyAdmin.key, body, headers: { 'Idempotency-Key': key } });
  const attempts = Promise.all([send(), send()]);
  await new Promise((res) => setTimeout(res, 200));
  expect(await stored(retried)).toBe(0);

  await release();
  expect((await first).status).toBe(200);
  const answers = await attempts;
  const written = answers.filter((res) => res.status === 200 && res.headers['idempotent-replayed'] !== 'true');
  expect(written).toHaveLength(1);
  const other = answers.find((res) => res !== written[0])!;
  expect(other.status === 409 || (other.status === 200 && other.headers['idempotent-replayed'] === 'true')).toBe(true);
  expect(await stored(retried)).toBe(1);
});

test('a batch larger than the whole budget is written, alone', async () => {
  const emails = Array.from({ length: 5 }, (_, i) => `large${i}.${Date.now()}@example.com`);
  const res = await batch(...emails);
  expect(res.status).toBe(200);
  expect(res.body.results.map((x: any) => x.status)).toEqual([201, 201, 201, 201, 201]);
});
