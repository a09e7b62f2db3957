import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestApp, type TestApp } from '../support/app';
import { query, usePreparedStatements } from '../../src/db/sql';
import { PostgresSearchBackend } from '../../src/search/postgres.queries';
import { leadSearch } from '../../src/modules/lead/lead.search';

/**
 * Issue 10: statements sent with their values as parameters are prepared on their connection once seen
 * again, so PostgreSQL reuses their plans; a prepared statement that a schema change invalidated is sent
 * unnamed instead of failing the request.
 */
let t: TestApp;

beforeAll(async () => {
  // One pooled connection: every statement below meets the statements prepared before it.
  t = await createTestApp({ DB_POOL_SIZE: '1' });
});
afterAll(async () => {
  usePreparedStatements(200);
  await t.close();
});

/** `fn`, then the statements prepared on the connection. */
async function onOneConnection<T>(fn: (em: EntityManager) => Promise<T>): Promise<{ result: T; prepared: string[] }> {
  const result = await fn(t.em());
  const rows = await query(t.em(), `select statement from pg_prepared_statements where name like 'leadnet\\_%'`);
  return { result, prepared: rows.map((r) => r.statement as string) };
}

test('a statement is prepared the second time it is sent, and answers the same', async () => {
  usePreparedStatements(200);
  const sql = `select ?::int + 1 as n /* prepared-statements test */`;
  const { result, prepared } = await onOneConnection(async (em) => [await query(em, sql, [1]), await query(em, sql, [2]), await query(em, sql, [3])]);
  expect(result).toEqual([[{ n: 2 }], [{ n: 3 }], [{ n: 4 }]]);
  expect(prepared.filter((s) => s.includes('prepared-statements test'))).toEqual(['select $1::int + 1 as n /* prepared-statements test */']);
});

test('a statement sent with `prepare: false` is planned every time (the store locator ranking)', async () => {
  usePreparedStatements(200);
  const sql = `select ?::int as n /* planned each time */`;
  const { prepared } = await onOneConnection(async (em) => {
    for (const n of [1, 2, 3]) await query(em, sql, [n], { prepare: false });
  });
  expect(prepared.filter((s) => s.includes('planned each time'))).toEqual([]);
});

test('a list is prepared without q, where and aggs, and planned for each search with them', async () => {
  usePreparedStatements(200);
  const search = new PostgresSearchBackend(() => t.em());
  const list = (extra: object) => search.search(leadSearch, { page: 1, perPage: 10, scope: {}, ...extra });
  const { prepared } = await onOneConnection(async () => {
    for (let i = 0; i < 3; i++) {
      await list({});
      await list({ q: 'garcia' });
      await list({ where: { status: 'Won' } });
      await list({ aggs: { status: { terms: {} } } });
    }
  });
  const lists = prepared.filter((s) => s.includes('from leads l'));
  expect(lists).toHaveLength(1);
  expect(lists[0]).not.toMatch(/leadnet_word_pattern|l\.status|group by/);
});

test('DB_PREPARED_STATEMENTS=0 prepares nothing', async () => {
  usePreparedStatements(0);
  const sql = `select ?::int as n /* not prepared */`;
  const { prepared } = await onOneConnection(async (em) => {
    for (const n of [1, 2, 3]) await query(em, sql, [n]);
  });
  expect(prepared.filter((s) => s.includes('not prepared'))).toEqual([]);
});

test('a prepared statement whose result columns a migration changed is sent unnamed, and answers with the new columns', async () => {
  usePreparedStatements(200);
  const em = t.em();
  await em.getConnection().execute(`create table prepared_probe (a int); insert into prepared_probe values (1)`);
  const sql = `select * from prepared_probe /* changing */`;
  await query(em, sql);
  expect(await query(em, sql)).toEqual([{ a: 1 }]);
  expect(await query(em, `select count(*)::int as n from pg_prepared_statements where statement like '%changing%'`)).toEqual([{ n: 1 }]);
  await em.getConnection().execute(`alter table prepared_probe add column b int default 2`);
  for (let i = 0; i < 3; i++) expect(await query(t.em(), sql)).toEqual([{ a: 1, b: 2 }]);
});

test('a statement outside a transaction numbers its ? placeholders, keeps \\? (in SQL and in a string literal) as a question mark, and refuses a count that does not match', async () => {
  const [row] = await query(t.em(), `select ?::int + ?::int as n, '{"a": 1}'::jsonb \\? ? as has, '\\?' as mark`, [1, 2, 'a']);
  expect(row).toEqual({ n: 3, has: true, mark: '?' });
  await expect(query(t.em(), 'select ?::int as n', [])).rejects.toThrow('Expected 0 bindings, saw 1');
  await expect(query(t.em(), 'select ?::int as n', [undefined])).rejects.toThrow('Undefined binding');
});

test('a statement that fails outside a transaction gives its connection back to the pool (of one, here)', async () => {
  for (let i = 0; i < 3; i++) {
    await expect(query(t.em(), 'select 1 / ?::int as n', [0])).rejects.toMatchObject({ name: 'DriverException', code: '22012' });
  }
  expect(await query(t.em(), 'select 1 / ?::int as n', [1])).toEqual([{ n: 1 }]);
});
