/**
 * The search conformance suite: the semantics of PRODUCT.md section 6, the same cases for every
 * backend. A runner per backend (`postgres.test.ts`, `elasticsearch.test.ts`) supplies a harness.
 *
 * Part 1 drives the backend directly over a test-only document with every field type (strings,
 * numbers, booleans, dates, uuids, an array). Part 2 goes through HTTP on products: query-string
 * parsing, scope by role, pagination, facets, `q`, and GraphQL.
 */
import { api, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { Collection } from '../../src/modules/collection/collection.entity';
import type { Company } from '../../src/modules/company/company.entity';
import type { Product } from '../../src/modules/product/product.entity';
import type { SearchBackend, SearchDocument, SearchRequest, SearchResult } from '../../src/search/types';

export interface SearchHarness {
  name: string;
  /** Boots the app on this backend. */
  createApp(): Promise<TestApp>;
  /** A backend over the app's database that also knows `extra` documents. */
  backend(t: TestApp, extra: SearchDocument[]): SearchBackend;
  /** Makes every committed write searchable (Elasticsearch: drain the outbox, refresh). */
  settle(t: TestApp, backend: SearchBackend): Promise<void>;
  /** Makes a test-only document's rows searchable. */
  load(t: TestApp, backend: SearchBackend, doc: SearchDocument): Promise<void>;
  /** Whether SQL statements per request can be counted (PostgreSQL). */
  countsStatements: boolean;
  /** Removes what the backend created outside the database. */
  cleanup?(t: TestApp): Promise<void>;
}

// ---- Part 1: the backend over a document with every field type --------------------------------

const fixtureId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const OWNER_A = 'aaaaaaaa-0000-4000-8000-000000000000';
const OWNER_B = 'bbbbbbbb-0000-4000-8000-000000000000';

export const fixtures: SearchDocument = {
  name: 'search_fixtures',
  from: 'search_fixtures f',
  alias: 'f',
  fields: {
    id: { sql: 'f.id', type: 'uuid' },
    name: { sql: 'f.name', type: 'string', text: true },
    city: { sql: 'f.city', type: 'string', text: true },
    price: { sql: 'f.price', type: 'number' },
    stock: { sql: 'f.stock', type: 'number' },
    active: { sql: 'f.active', type: 'boolean' },
    released_at: { sql: 'f.released_at', type: 'date' },
    tags: { sql: 'f.tags', type: 'string', array: true, text: true },
    owner_id: { sql: 'f.owner_id', type: 'uuid' },
    created_at: { sql: 'f.created_at', type: 'date' },
  },
};

// n, name, city, price, stock, active, released_at, tags, owner; created_at = 2026-06-0n (8 newest).
const ROWS: Array<[number, string, string | null, number | null, number | null, boolean | null, string | null, string | null, string]> = [
  [1, 'Anvil Deluxe', 'Portland', 10.5, 3, true, '2026-01-10T00:00:00Z', '{metal,heavy}', OWNER_A],
  [2, 'Hammer', 'Seattle', 20, 0, false, '2026-02-15T00:00:00Z', '{metal}', OWNER_A],
  [3, 'Crème Brûlée Torch', 'Montréal', 35, 12, true, '2026-03-01T00:00:00Z', '{kitchen,fire}', OWNER_B],
  [4, 'Straße Sign', 'Berlin', null, 5, true, null, '{}', OWNER_B],
  [5, 'Widget', null, 5, null, null, '2025-12-31T23:59:59Z', '{plastic,metal}', OWNER_A],
  [6, 'Gadget Pro', 'Portland', 99.99, 7, false, '2026-01-10T12:00:00Z', null, OWNER_B],
  [7, 'anvil stand', 'portland', 15, 1, true, '2026-04-01T00:00:00Z', '{metal,stand}', OWNER_A],
  [8, 'Lamp_50% off', 'Seattle', 12, 2, true, '2026-05-05T00:00:00Z', '{light}', OWNER_A],
];
const ALL = [8, 7, 6, 5, 4, 3, 2, 1];

export async function createFixtures(t: TestApp): Promise<void> {
  const execute = (sql: string, params: unknown[] = []) => t.em().getConnection().execute(sql, params as any[]);
  await execute(`create table search_fixtures (
    id uuid primary key, created_at timestamptz not null, name text, city text, price numeric, stock int,
    active boolean, released_at timestamptz, tags text[], owner_id uuid)`);
  for (const [n, name, city, price, stock, active, released, tags, owner] of ROWS) {
    await execute(`insert into search_fixtures values (?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?)`, [
      fixtureId(n),
      `2026-06-0${n}T00:00:00Z`,
      name,
      city,
      price,
      stock,
      active,
      released,
      tags,
      owner,
    ]);
  }
}

type Case = [string, Partial<SearchRequest>, number[]];

export const WHERE_CASES: Case[] = [
  ['no where: everything, newest first', {}, ALL],
  ['a value (exact, case-sensitive)', { where: { city: 'Portland' } }, [6, 1]],
  ['a list: any of', { where: { city: ['Portland', 'Seattle'] } }, [8, 6, 2, 1]],
  ['an empty list matches nothing', { where: { city: [] } }, []],
  ['null: no value', { where: { city: null } }, [5]],
  ['null in a list', { where: { city: [null, 'Berlin'] } }, [5, 4]],
  ['not: a value (records without one included)', { where: { city: { not: 'Portland' } } }, [8, 7, 5, 4, 3, 2]],
  ['not: a list with null', { where: { city: { not: ['Portland', null] } } }, [8, 7, 4, 3, 2]],
  ['not: null', { where: { city: { not: null } } }, [8, 7, 6, 4, 3, 2, 1]],
  ['in', { where: { city: { in: ['Berlin'] } } }, [4]],
  ['in with a single value', { where: { city: { in: 'Berlin' } } }, [4]],
  ['gt on a number', { where: { price: { gt: 12 } } }, [7, 6, 3, 2]],
  ['gte and lt together', { where: { price: { gte: 12, lt: 35 } } }, [8, 7, 2]],
  ['a number given as a string', { where: { price: { lte: '10.5' } } }, [5, 1]],
  ['equality on a number from a string', { where: { price: '20' } }, [2]],
  ['a word for a number matches nothing', { where: { price: 'abc' } }, []],
  ['not an impossible value matches everything', { where: { price: { not: 'abc' } } }, ALL],
  ['range with null matches nothing', { where: { price: { gt: null } } }, []],
  ['null number', { where: { price: null } }, [4]],
  ['zero is a value', { where: { stock: 0 } }, [2]],
  ['boolean true', { where: { active: true } }, [8, 7, 4, 3, 1]],
  ['boolean from the string false', { where: { active: 'false' } }, [6, 2]],
  ['boolean from 1', { where: { active: '1' } }, [8, 7, 4, 3, 1]],
  ['null boolean', { where: { active: null } }, [5]],
  ['not true', { where: { active: { not: true } } }, [6, 5, 2]],
  ['a word for a boolean matches nothing', { where: { active: 'maybe' } }, []],
  ['date gte a day', { where: { released_at: { gte: '2026-01-10' } } }, [8, 7, 6, 3, 2, 1]],
  ['date range with a time', { where: { released_at: { gt: '2026-01-10T00:00:00Z', lt: '2026-03-01' } } }, [6, 2]],
  ['date with an offset', { where: { released_at: { lt: '2026-01-01T01:00:00+01:00' } } }, [5]],
  ['date equality', { where: { released_at: '2026-01-10T00:00:00.000Z' } }, [1]],
  ['date as epoch milliseconds', { where: { released_at: String(Date.parse('2026-01-10T00:00:00Z')) } }, [1]],
  ['an impossible date matches nothing', { where: { released_at: { gte: '2026-02-31' } } }, []],
  ['a word for a date matches nothing', { where: { released_at: 'soon' } }, []],
  ['exists false', { where: { released_at: { exists: false } } }, [4]],
  ['exists true from a string', { where: { released_at: { exists: 'true' } } }, [8, 7, 6, 5, 3, 2, 1]],
  ['uuid', { where: { id: fixtureId(3) } }, [3]],
  ['uuid in upper case', { where: { id: fixtureId(3).toUpperCase() } }, [3]],
  ['not a uuid matches nothing', { where: { id: 'not-a-uuid' } }, []],
  ['uuids with a bad one', { where: { id: [fixtureId(1), 'x', fixtureId(2)] } }, [2, 1]],
  ['uuid of an owner', { where: { owner_id: OWNER_A } }, [8, 7, 5, 2, 1]],
  ['prefix', { where: { name: { prefix: 'Anvil' } } }, [1]],
  ['prefix is literal', { where: { name: { prefix: 'Lamp_' } } }, [8]],
  ['prefix does not read %', { where: { name: { prefix: 'Lamp%' } } }, []],
  ['like', { where: { name: { like: '%nvil%' } } }, [7, 1]],
  ['like is case-sensitive', { where: { name: { like: 'Anvil%' } } }, [1]],
  ['ilike', { where: { name: { ilike: 'anvil%' } } }, [7, 1]],
  ['like with escapes', { where: { name: { like: 'Lamp\\_50\\%%' } } }, [8]],
  ['like with _ as one character', { where: { name: { like: 'Lamp_50%' } } }, [8]],
  ['like ending in a lone backslash', { where: { name: { like: 'Widget\\' } } }, []],
  ['patterns on numbers match nothing', { where: { price: { prefix: '1' } } }, []],
  ['array: contains', { where: { tags: 'metal' } }, [7, 5, 2, 1]],
  ['array: contains any', { where: { tags: ['fire', 'light'] } }, [8, 3]],
  ['array: all', { where: { tags: { all: ['metal', 'heavy'] } } }, [1]],
  ['array: null is empty or missing', { where: { tags: null } }, [6, 4]],
  ['array: exists', { where: { tags: { exists: true } } }, [8, 7, 5, 3, 2, 1]],
  ['array: not', { where: { tags: { not: 'metal' } } }, [8, 6, 4, 3]],
  ['array: not null', { where: { tags: { not: null } } }, [8, 7, 5, 3, 2, 1]],
  ['array: prefix', { where: { tags: { prefix: 'me' } } }, [7, 5, 2, 1]],
  ['array: in', { where: { tags: { in: ['stand'] } } }, [7]],
  ['_or', { where: { _or: [{ city: 'Berlin' }, { price: { gt: 50 } }] } }, [6, 4]],
  ['_or of nothing matches nothing', { where: { _or: [] } }, []],
  ['_and', { where: { _and: [{ tags: 'metal' }, { active: true }] } }, [7, 1]],
  ['_not', { where: { _not: { active: true } } }, [6, 5, 2]],
  ['_not beside a condition', { where: { _not: { city: 'Portland' }, active: true } }, [8, 7, 4, 3]],
  ['nested _or in _and in _not', { where: { _not: { _and: [{ active: true }, { _or: [{ city: 'Seattle' }, { price: { lt: 11 } }] }] } } }, [7, 6, 5, 4, 3, 2]],
  ['sibling keys AND', { where: { city: 'Portland', active: false } }, [6]],
  ['unknown field matches nothing', { where: { nope: 1 } }, []],
  ['unknown field with an operator matches nothing', { where: { nope: { gt: 1 } } }, []],
  ['unknown field inside _or', { where: { _or: [{ nope: 1 }, { city: 'Berlin' }] } }, [4]],
  ['an inherited property name is not a field', { where: { constructor: 'x' } }, []],
  ['a string with a NUL matches nothing', { where: { name: 'Ham\u0000mer' } }, []],
];

const ORDER_CASES: Case[] = [
  ['a field name: ascending, by code point', { order: 'name' }, [1, 3, 6, 2, 8, 4, 5, 7]],
  ['desc, missing values last', { order: { price: 'desc' } }, [6, 3, 2, 7, 8, 1, 5, 4]],
  ['asc, missing values last', { order: { price: 'asc' } }, [5, 1, 8, 7, 2, 3, 6, 4]],
  ['several keys as a list', { order: [{ active: 'desc' }, { price: 'asc' }] }, [1, 8, 7, 3, 4, 2, 6, 5]],
  ['several keys in one hash', { order: { active: 'desc', price: 'asc' } }, [1, 8, 7, 3, 4, 2, 6, 5]],
  ['a date', { order: { released_at: 'asc' } }, [5, 1, 6, 2, 3, 7, 8, 4]],
  ['{order: desc} form, upper case', { order: { price: { order: 'DESC' } } as any }, [6, 3, 2, 7, 8, 1, 5, 4]],
  ['ties by created_at desc then id', { order: { owner_id: 'asc' } }, [8, 7, 5, 2, 1, 6, 4, 3]],
];

const Q_CASES: Case[] = [
  ['a word', { q: 'anvil' }, [7, 1]],
  ['a prefix', { q: 'anv' }, [7, 1]],
  ['a deletion typo', { q: 'anvl' }, [7, 1]],
  ['a transposition', { q: 'anvli' }, [7, 1]],
  ['a substitution', { q: 'amvil' }, [7, 1]],
  ['an insertion', { q: 'hammmer' }, [2]],
  ['a missing letter', { q: 'hamer' }, [2]],
  ['two typos are too many', { q: 'amvl' }, []],
  ['no typo under four letters', { q: 'hqm' }, []],
  ['a short prefix', { q: 'ham' }, [2]],
  ['accents and case', { q: 'CREME brulee' }, [3]],
  ['accents in the query', { q: 'Montréal' }, [3]],
  ['ß folds to ss', { q: 'strasse' }, [4]],
  ['every word must match', { q: 'anvil torch' }, []],
  ['words in any order', { q: 'deluxe anvil' }, [1]],
  ['array text fields', { q: 'plastic' }, [5]],
  ['punctuation around words', { q: '"anvil", (deluxe)!' }, [1]],
  ['* matches everything', { q: '*' }, ALL],
  ['blank matches everything', { q: '   ' }, ALL],
  ['nothing close', { q: 'xylophone' }, []],
  ['a word of an array field', { q: 'stand' }, [7]],
  ['a word glued to punctuation', { q: 'lamp' }, [8]],
  ['digits are words', { q: '50' }, [8]],
  ['q with an order', { q: 'anvil', order: { price: 'asc' } }, [1, 7]],
  ['q with where', { q: 'anvil', where: { city: 'Portland' } }, [1]],
];

export function ids(result: SearchResult): number[] {
  return result.ids.map((id) => Number(id.slice(-12)));
}

function aggOf(result: SearchResult, field: string) {
  return result.aggs[field];
}

export function searchConformance(h: SearchHarness): void {
  describe(`search conformance: ${h.name}`, () => {
    let t: TestApp;
    let backend: SearchBackend;
    beforeAll(async () => {
      t = await h.createApp();
      await createFixtures(t);
      backend = h.backend(t, [fixtures]);
      await h.load(t, backend, fixtures);
      await seedProducts();
      await h.settle(t, backend);
    });
    afterAll(async () => {
      await h.cleanup?.(t);
      await t.close();
    });

    const search = (req: Partial<SearchRequest>) => backend.search(fixtures, { page: 1, perPage: 50, scope: {}, ...req });

    describe('where', () => {
      test.each(WHERE_CASES)('%s', async (_name, req, expected) => {
        const result = await search(req);
        expect(ids(result)).toEqual(expected);
        expect(result.total).toBe(expected.length);
      });

      test.each([
        ['an unknown operator', { city: { bogus: 1 } }],
        ['an unknown operator on an unknown field', { nope: { bogus: 1 } }],
        ['an unknown operator deep inside', { _or: [{ _not: { city: { startswith: 'P' } } }] }],
        ['_not of a value', { _not: 'x' }],
        ['_or of a value', { _or: 'x' }],
        ['where as a string', 'x'],
      ])('%s is a 400', async (_name, where) => {
        await expect(search({ where: where as any })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });

      // Beyond the list bounds (src/limits.ts), which keep every request below it: an engine refuses an
      // automaton too costly to build, and says so as the caller's 400; PostgreSQL's LIKE just runs.
      test('a pattern too complex for an automaton: a 400 on an engine, an answer on PostgreSQL', async () => {
        const request = search({ where: { name: { ilike: '%a_'.repeat(300) } } });
        if (h.name === 'PostgreSQL') expect(ids(await request)).toEqual([]);
        else await expect(request).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('too complex') });
      });
    });

    describe('order', () => {
      test.each(ORDER_CASES)('%s', async (_name, req, expected) => {
        expect(ids(await search(req))).toEqual(expected);
      });

      test.each([['nope'], ['tags'], ['constructor']])('ordering on %s is a 400', async (field) => {
        await expect(search({ order: { [field]: 'asc' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });

      test('a direction other than asc/desc is a 400', async () => {
        await expect(search({ order: { price: 'up' } as any })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });
    });

    describe('pages', () => {
      test('a middle page', async () => {
        const r = await search({ page: 2, perPage: 3 });
        expect(ids(r)).toEqual([5, 4, 3]);
        expect(r.total).toBe(8);
      });
      test('the last, partial page', async () => {
        expect(ids(await search({ page: 3, perPage: 3 }))).toEqual([2, 1]);
      });
      test('a page past the end is empty with the true total', async () => {
        const r = await search({ page: 5, perPage: 3, aggs: ['city'] });
        expect(r.ids).toEqual([]);
        expect(r.total).toBe(8);
        expect(r.aggs.city.buckets.length).toBeGreaterThan(0);
      });
      test('a page far past the end', async () => {
        const r = await search({ page: 1_000_000, perPage: 500 });
        expect(r).toMatchObject({ ids: [], total: 8 });
      });
    });

    describe('q', () => {
      test.each(Q_CASES)('%s', async (_name, req, expected) => {
        const result = await search(req);
        expect(ids(result)).toEqual(expected);
        expect(result.total).toBe(expected.length);
      });
    });

    describe('scope', () => {
      test('only what the scope covers is found and counted', async () => {
        const r = await search({ scope: { owner_id: OWNER_B }, aggs: ['city'] });
        expect(ids(r)).toEqual([6, 4, 3]);
        expect(r.total).toBe(3);
        expect(aggOf(r, 'city').buckets).toEqual([
          { key: 'Berlin', doc_count: 1 },
          { key: 'Montréal', doc_count: 1 },
          { key: 'Portland', doc_count: 1 },
        ]);
      });
      test('a where cannot widen the scope', async () => {
        const r = await search({ scope: { owner_id: OWNER_B }, where: { _or: [{ owner_id: OWNER_A }, { city: 'Seattle' }] } });
        expect(r).toMatchObject({ ids: [], total: 0 });
      });
      test('a field hidden from the caller reads as one the document does not index; its scope still reads it', async () => {
        const hidden = ['owner_id'];
        expect(await search({ hidden, where: { owner_id: OWNER_A } })).toMatchObject({ ids: [], total: 0 });
        expect(ids(await search({ hidden, where: { _not: { owner_id: OWNER_A } } }))).toEqual(ALL);
        expect(aggOf(await search({ hidden, aggs: ['owner_id', 'city'] }), 'owner_id')).toEqual({ doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] });
        await expect(search({ hidden, order: { owner_id: 'asc' } })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        expect(ids(await search({ hidden, scope: { owner_id: OWNER_B } }))).toEqual([6, 4, 3]);
      });
      test('an empty id list is nothing', async () => {
        const r = await search({ scope: { id: [] }, q: 'anvil', aggs: ['city'] });
        expect(r).toMatchObject({ ids: [], total: 0, aggs: { city: { buckets: [], sum_other_doc_count: 0 } } });
      });
      test('scope, q and facets together', async () => {
        const r = await search({ scope: { owner_id: OWNER_A }, q: 'metal', aggs: ['city', 'tags'] });
        expect(ids(r)).toEqual([7, 5, 2, 1]);
        expect(aggOf(r, 'city').buckets).toEqual([
          { key: 'Portland', doc_count: 1 },
          { key: 'Seattle', doc_count: 1 },
          { key: 'portland', doc_count: 1 },
        ]);
        expect(aggOf(r, 'tags').buckets).toEqual([
          { key: 'metal', doc_count: 4 },
          { key: 'heavy', doc_count: 1 },
          { key: 'plastic', doc_count: 1 },
          { key: 'stand', doc_count: 1 },
        ]);
      });
    });

    describe('aggs', () => {
      const CITIES = [
        { key: 'Portland', doc_count: 2 },
        { key: 'Seattle', doc_count: 2 },
        { key: 'Berlin', doc_count: 1 },
        { key: 'Montréal', doc_count: 1 },
        { key: 'portland', doc_count: 1 },
      ];
      test('buckets by count desc then key asc, in the documented shape', async () => {
        const r = await search({ aggs: ['city'] });
        expect(r.aggs).toEqual({ city: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: CITIES } });
      });
      test('no aggs: {}', async () => {
        expect((await search({})).aggs).toEqual({});
      });
      test('a field name as a string', async () => {
        expect((await search({ aggs: 'city' as any })).aggs.city.buckets).toEqual(CITIES);
      });
      test('limit, with the rest in sum_other_doc_count', async () => {
        const r = await search({ aggs: { city: { limit: 2 } } });
        expect(r.aggs.city).toEqual({ doc_count_error_upper_bound: 0, sum_other_doc_count: 3, buckets: CITIES.slice(0, 2) });
      });
      test('order by key', async () => {
        const r = await search({ aggs: { city: { order: { _key: 'desc' } } } });
        expect(r.aggs.city.buckets.map((b) => b.key)).toEqual(['portland', 'Seattle', 'Portland', 'Montréal', 'Berlin']);
      });
      test('order by count ascending', async () => {
        const r = await search({ aggs: { city: { order: { _count: 'asc' } } } });
        expect(r.aggs.city.buckets.map((b) => b.key)).toEqual(['Berlin', 'Montréal', 'portland', 'Portland', 'Seattle']);
      });
      test('min_doc_count', async () => {
        const r = await search({ aggs: { city: { min_doc_count: 2 } } });
        expect(r.aggs.city.buckets).toEqual(CITIES.slice(0, 2));
      });
      test('its own where', async () => {
        const r = await search({ aggs: { city: { where: { active: true } } } });
        expect(r.aggs.city.buckets.map((b) => b.key)).toEqual(['Berlin', 'Montréal', 'Portland', 'Seattle', 'portland']);
      });
      test("each facet applies every where condition but its own field's", async () => {
        const r = await search({ where: { city: 'Portland' }, aggs: ['city', 'active'] });
        expect(r.total).toBe(2);
        expect(r.aggs.city.buckets).toEqual(CITIES);
        expect(r.aggs.active.buckets).toEqual([
          { key: false, doc_count: 1 },
          { key: true, doc_count: 1 },
        ]);
      });
      test('a condition on the field inside _or still applies', async () => {
        const r = await search({ where: { _or: [{ city: 'Berlin' }, { city: 'Montréal' }] }, aggs: ['city'] });
        expect(r.aggs.city.buckets).toEqual([
          { key: 'Berlin', doc_count: 1 },
          { key: 'Montréal', doc_count: 1 },
        ]);
      });
      test('an array field counts each record once per value', async () => {
        const r = await search({ aggs: ['tags'] });
        expect(r.aggs.tags.buckets).toEqual([
          { key: 'metal', doc_count: 4 },
          { key: 'fire', doc_count: 1 },
          { key: 'heavy', doc_count: 1 },
          { key: 'kitchen', doc_count: 1 },
          { key: 'light', doc_count: 1 },
          { key: 'plastic', doc_count: 1 },
          { key: 'stand', doc_count: 1 },
        ]);
      });
      test('number keys are numbers, in numeric order', async () => {
        const r = await search({ aggs: ['price'] });
        expect(r.aggs.price.buckets.map((b) => b.key)).toEqual([5, 10.5, 12, 15, 20, 35, 99.99]);
      });
      test('date keys are ISO 8601', async () => {
        const r = await search({ aggs: { released_at: { limit: 2 } } });
        expect(r.aggs.released_at.buckets).toEqual([
          { key: '2025-12-31T23:59:59.000Z', doc_count: 1 },
          { key: '2026-01-10T00:00:00.000Z', doc_count: 1 },
        ]);
      });
      test('with q', async () => {
        const r = await search({ q: 'anvil', aggs: ['city'] });
        expect(r.aggs.city.buckets).toEqual([
          { key: 'Portland', doc_count: 1 },
          { key: 'portland', doc_count: 1 },
        ]);
      });
      test('an unknown field has no buckets', async () => {
        expect((await search({ aggs: ['nope', 'constructor'] })).aggs).toEqual({
          nope: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
          constructor: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
        });
      });
      test.each([
        ['limit 0', { city: { limit: 0 } }],
        ['limit not a number', { city: { limit: 'many' } }],
        ['order on a field', { city: { order: { name: 'asc' } } }],
        ['negative min_doc_count', { city: { min_doc_count: -1 } }],
        ['options not an object', { city: 5 }],
      ])('%s is a 400', async (_name, aggs) => {
        await expect(search({ aggs: aggs as any })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      });
    });

    // ---- Part 2: products through HTTP ---------------------------------------------------------

    let acme: Company;
    let globex: Company;
    let p: Record<string, Product>;
    let g: Record<string, Product>;
    let keys: Record<string, string>;
    let tools: Collection;

    async function seedProducts(): Promise<void> {
      const em = t.em();
      acme = await f.company(em, 'Acme');
      globex = await f.company(em, 'Globex');
      tools = em.create(Collection, { company: acme, name: 'Tools' });
      await em.flush();
      const make = async (owner: Company, sku: string, name: string, category: string | null, day: number, collection?: Collection) => {
        const product = await f.product(em, owner, { sku, name, category });
        if (collection) {
          product.collection = collection;
          await em.flush();
        }
        await em.getConnection().execute('update products set created_at = ? where id = ?', [`2026-05-0${day}T00:00:00Z`, product.id]);
        return product;
      };
      p = {
        anvil: await make(acme, 'ANV-1', 'Anvil', 'Tools', 1, tools),
        stand: await make(acme, 'ANV-2', 'Anvil Stand', 'Tools', 2, tools),
        lamp: await make(acme, 'LMP-1', 'Lamp', 'Lighting', 3),
        shade: await make(acme, 'LMP-2', 'Lampshade', 'Lighting', 4),
        lamb: await make(acme, 'LMB-1', 'Lamb Rug', 'Décor', 5),
        torch: await make(acme, 'CRM-1', 'Crème Brûlée Torch', null, 6),
      };
      g = {
        anvil: await make(globex, 'ANV-1', 'Anvil', 'Tools', 7),
        globe: await make(globex, 'GLB-2', 'Globe', 'Lighting', 8),
        stand: await make(globex, 'GLB-3', 'Globe Stand', 'Décor', 9),
      };
      const seller = await f.retailer(em);
      const north = await f.territory(em, acme, 'North');
      keys = {
        acme: (await f.userWithKey(em, Role.CompanyAdmin, acme)).key,
        acmeTerritory: (await f.userWithKey(em, Role.CompanyTerritoryManager, acme, { territory: north })).key,
        globex: (await f.userWithKey(em, Role.CompanyAdmin, globex)).key,
        retailer: (await f.userWithKey(em, Role.RetailerAdmin, seller)).key,
      };
    }

    const list = async (query: string, key = keys.acme) => {
      const res = await api(t, 'get', `/v1/products${query ? `?${query}` : ''}`, { key });
      return res;
    };
    const listed = async (query: string, key = keys.acme) => {
      const res = await list(query, key);
      expect(res.status).toBe(200);
      return res.body.products.map((x: { id: string }) => x.id);
    };

    describe('HTTP: scope by role', () => {
      test('a company user sees and counts only its company', async () => {
        for (const key of [keys.acme, keys.acmeTerritory]) {
          const res = await list('opts[aggs][]=category', key);
          expect(res.body.meta.total).toBe(6);
          expect(res.body.products.map((x: { company_id: string }) => x.company_id)).toEqual(Array(6).fill(acme.id));
          expect(res.body.meta.aggs.category.buckets).toEqual([
            { key: 'Lighting', doc_count: 2 },
            { key: 'Tools', doc_count: 2 },
            { key: 'Décor', doc_count: 1 },
          ]);
        }
      });
      test('a retailer user sees every product', async () => {
        const res = await list('opts[aggs][]=category&opts[aggs][]=company_id', keys.retailer);
        expect(res.body.meta.total).toBe(9);
        expect(res.body.meta.aggs.category.buckets).toEqual([
          { key: 'Lighting', doc_count: 3 },
          { key: 'Tools', doc_count: 3 },
          { key: 'Décor', doc_count: 2 },
        ]);
        expect(res.body.meta.aggs.company_id.buckets).toEqual(
          [
            { key: acme.id, doc_count: 6 },
            { key: globex.id, doc_count: 3 },
          ],
        );
      });
      test("asking for another company's products finds nothing", async () => {
        const res = await list(`opts[where][company_id]=${acme.id}&q=anvil&opts[aggs][]=category`, keys.globex);
        expect(res.body).toEqual({ products: [], meta: { total: 0, page: 1, per_page: 50, total_pages: 0, aggs: { category: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] } } } });
      });
      test('q never reaches outside the scope', async () => {
        expect(await listed('q=globe')).toEqual([]);
        expect(await listed('q=globe', keys.retailer)).toEqual([g.stand.id, g.globe.id]);
      });
    });

    describe('HTTP: the query string', () => {
      test('opts[where][field]=value', async () => {
        expect(await listed('opts[where][category]=Tools')).toEqual([p.stand.id, p.anvil.id]);
      });
      test('a date range', async () => {
        expect(await listed('opts[where][created_at][gte]=2026-05-05')).toEqual([p.torch.id, p.lamb.id]);
        expect(await listed('opts[where][created_at][gte]=2026-05-05T00:00:00Z&opts[where][created_at][lt]=2026-05-06')).toEqual([p.lamb.id]);
      });
      test('a list with []', async () => {
        expect(await listed('opts[where][sku][]=ANV-1&opts[where][sku][]=LMP-1')).toEqual([p.lamp.id, p.anvil.id]);
      });
      test('a repeated key is a list too', async () => {
        expect(await listed('opts[where][sku]=ANV-1&opts[where][sku]=LMP-1')).toEqual([p.lamp.id, p.anvil.id]);
      });
      test('a long list keeps its shape', async () => {
        const skus = [...Array.from({ length: 30 }, (_, i) => `NOPE-${i}`), 'LMB-1'];
        expect(await listed(skus.map((s) => `opts[where][sku][]=${s}`).join('&'))).toEqual([p.lamb.id]);
      });
      test('the string null', async () => {
        expect(await listed('opts[where][category]=null')).toEqual([p.torch.id]);
        expect(await listed(`opts[where][category][]=null&opts[where][category][]=${encodeURIComponent('Décor')}`)).toEqual([p.torch.id, p.lamb.id]);
        expect(await listed('opts[where][category][not]=null&opts[page]=null&opts[order]=null')).toEqual([p.lamb.id, p.shade.id, p.lamp.id, p.stand.id, p.anvil.id]);
      });
      test('operators', async () => {
        expect(await listed('opts[where][category][not]=Tools')).toEqual([p.torch.id, p.lamb.id, p.shade.id, p.lamp.id]);
        expect(await listed('opts[where][name][ilike]=%25stand%25')).toEqual([p.stand.id]);
        expect(await listed('opts[where][sku][prefix]=LM')).toEqual([p.lamb.id, p.shade.id, p.lamp.id]);
        expect(await listed(`opts[where][collection_id]=${tools.id}`)).toEqual([p.stand.id, p.anvil.id]);
        expect(await listed('opts[where][collection_id][exists]=false&opts[where][category][in][]=Tools&opts[where][category][in][]=Lighting')).toEqual([p.shade.id, p.lamp.id]);
      });
      test('_or, _and, _not with indexes, nested deeper than five levels', async () => {
        expect(await listed('opts[where][_or][0][category]=Tools&opts[where][_or][1][name][prefix]=Lamp')).toEqual([p.shade.id, p.lamp.id, p.stand.id, p.anvil.id]);
        expect(await listed('opts[where][_or][0][_and][0][category]=Tools&opts[where][_or][0][_and][1][name]=Anvil')).toEqual([p.anvil.id]);
        expect(await listed('opts[where][_not][category]=Tools&opts[where][_not][name]=Lamp')).toEqual([p.torch.id, p.lamb.id, p.shade.id, p.lamp.id, p.stand.id, p.anvil.id]);
        expect(await listed('opts[where][_not][category]=Tools')).toEqual([p.torch.id, p.lamb.id, p.shade.id, p.lamp.id]);
      });
      test('order: a hash, a name, several keys', async () => {
        expect(await listed('opts[order][created_at]=asc')).toEqual([p.anvil.id, p.stand.id, p.lamp.id, p.shade.id, p.lamb.id, p.torch.id]);
        expect(await listed('opts[order]=name')).toEqual([p.anvil.id, p.stand.id, p.torch.id, p.lamb.id, p.lamp.id, p.shade.id]);
        expect(await listed('opts[order][category]=asc&opts[order][name]=desc')).toEqual([p.lamb.id, p.shade.id, p.lamp.id, p.stand.id, p.anvil.id, p.torch.id]);
      });
      test('aggs: a list and options', async () => {
        const res = await list('opts[aggs][category][limit]=1');
        expect(res.body.meta.aggs).toEqual({ category: { doc_count_error_upper_bound: 0, sum_other_doc_count: 3, buckets: [{ key: 'Lighting', doc_count: 2 }] } });
      });
      test('facet counts under filters', async () => {
        const res = await list('opts[where][category]=Tools&opts[aggs][]=category&opts[aggs][]=collection_id');
        expect(res.body.meta.total).toBe(2);
        expect(res.body.meta.aggs.category.buckets).toEqual([
          { key: 'Lighting', doc_count: 2 },
          { key: 'Tools', doc_count: 2 },
          { key: 'Décor', doc_count: 1 },
        ]);
        expect(res.body.meta.aggs.collection_id.buckets).toEqual([{ key: tools.id, doc_count: 2 }]);
      });
      test('an unknown field matches nothing; names of inherited properties as keys are a 400, as values data', async () => {
        expect((await list('opts[where][nope]=1')).body.meta.total).toBe(0);
        expect((await list('opts[where][constructor]=x')).status).toBe(400);
        expect((await list('opts[where][__proto__][x]=1')).status).toBe(400);
        expect((await list('opts[aggs][]=toString')).body.meta.aggs).toEqual({ toString: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] } });
      });
      test.each([
        ['an unknown operator', 'opts[where][category][bogus]=1'],
        ['an unknown order field', 'opts[order][nope]=asc'],
        ['an order on an inherited property', 'opts[order]=constructor'],
        ['a bad direction', 'opts[order][name]=sideways'],
        ['page 0', 'opts[page]=0'],
        ['a negative page', 'opts[page]=-1'],
        ['a fractional page', 'opts[page]=1.5'],
        ['a page that is a word', 'opts[page]=abc'],
        ['per_page 0', 'opts[per_page]=0'],
        ['a negative per_page', 'opts[per_page]=-5'],
        ['a bad aggs limit', 'opts[aggs][category][limit]=0'],
        ['opts that is not an object', 'opts=1'],
        ['two q', 'q=a&q=b'],
      ])('%s is a 400', async (_name, query) => {
        const res = await list(query);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ status: 400, error: 'Bad Request' });
        expect(typeof res.body.message).toBe('string');
      });
      test('a NUL anywhere is no 500', async () => {
        expect((await list('opts[where][name]=%00')).body.meta.total).toBe(0);
        expect((await list('q=%00')).body.meta.total).toBe(6);
        expect((await list('opts[where][name][like]=%00')).status).toBe(200);
      });
      test('patterns: at most 256 characters and 16 wildcards; the costliest within them answer', async () => {
        const refused = async (query: string, message: string) => {
          const res = await list(query);
          expect(res.status).toBe(400);
          expect(res.body.message).toBe(message);
        };
        await refused(`opts[where][name][ilike]=${encodeURIComponent(`%${'ab'.repeat(128)}`)}`, 'opts[where]: ilike patterns must be at most 256 characters');
        await refused(`opts[where][sku][prefix]=${'A'.repeat(257)}`, 'opts[where]: prefix patterns must be at most 256 characters');
        await refused(`opts[where][name][like]=${encodeURIComponent('%a_'.repeat(9))}`, 'opts[where]: like patterns must have at most 16 wildcards (% and _)');
        await refused(`opts[where][_or][0][name][ilike]=${encodeURIComponent('_'.repeat(17))}`, 'opts[where]: ilike patterns must have at most 16 wildcards (% and _)');
        // Escaped wildcards are characters; 256 characters with 16 wildcards in the shapes that cost an
        // automaton most (a wildcard run, alternations after %, case-folded accents) are answered.
        for (const pattern of [`${'\\%'.repeat(40)}%`, `%${'a_'.repeat(15)}`, `%a_a_a_a_a_a_a_%${'ab'.repeat(120)}`, `${'%_'.repeat(8)}${'é'.repeat(240)}`, `%${'ab'.repeat(7)}`.repeat(16)]) {
          for (const op of ['like', 'ilike']) {
            const res = await list(`opts[where][name][${op}]=${encodeURIComponent(pattern)}`);
            expect([op, pattern, res.status]).toEqual([op, pattern, 200]);
          }
        }
      });
    });

    describe('HTTP: pages', () => {
      test('page and per_page', async () => {
        const res = await list('opts[per_page]=2&opts[page]=2');
        expect(res.body.products.map((x: { id: string }) => x.id)).toEqual([p.shade.id, p.lamp.id]);
        expect(res.body.meta).toEqual({ total: 6, page: 2, per_page: 2, total_pages: 3, aggs: {} });
      });
      test('a page past the end is 200, empty, with the true total', async () => {
        const res = await list('opts[per_page]=2&opts[page]=4');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ products: [], meta: { total: 6, page: 4, per_page: 2, total_pages: 3, aggs: {} } });
      });
      test('per_page above 500 is lowered to 500', async () => {
        const res = await list('opts[per_page]=501');
        expect(res.body.meta.per_page).toBe(500);
        expect(res.body.products).toHaveLength(6);
      });
      test('the defaults', async () => {
        expect((await list('')).body.meta).toEqual({ total: 6, page: 1, per_page: 50, total_pages: 1, aggs: {} });
      });
    });

    describe('HTTP: q', () => {
      test('exact matches rank above fuzzy ones, whatever their age', async () => {
        // Lamp (a whole word), Lampshade (a prefix), Lamb Rug (one typo): newest first would be the reverse.
        expect(await listed('q=lamp')).toEqual([p.lamp.id, p.shade.id, p.lamb.id]);
      });
      test('typo, accents, prefix, all words', async () => {
        expect(await listed('q=anvl')).toEqual([p.stand.id, p.anvil.id]);
        expect(await listed('q=creme%20brulee')).toEqual([p.torch.id]);
        expect(await listed('q=anv')).toEqual([p.stand.id, p.anvil.id]);
        expect(await listed('q=anvil+stand')).toEqual([p.stand.id]);
        expect(await listed('q=anv-2')).toEqual([p.stand.id]);
      });
      test('an explicit order replaces relevance', async () => {
        expect(await listed('q=lamp&opts[order][created_at]=desc')).toEqual([p.lamb.id, p.shade.id, p.lamp.id]);
        expect(await listed('q=lamp&opts[order][_score]=desc&opts[order][name]=asc')).toEqual([p.lamp.id, p.shade.id, p.lamb.id]);
      });
      test('* matches all', async () => {
        expect((await list('q=*')).body.meta.total).toBe(6);
      });
    });

    describe('GraphQL list fields', () => {
      const QUERY = `query ($q: String, $where: ProductWhere, $order: [ProductOrderBy!], $page: Int, $perPage: Int, $aggs: [ProductFacetInput!]) {
        products(q: $q, where: $where, order: $order, page: $page, perPage: $perPage, aggs: $aggs) {
          nodes { id sku }
          meta { total page perPage totalPages aggs facets { field sumOtherDocCount buckets { key docCount } } }
        }
      }`;
      test('take q and typed where, order and aggs, page and perPage, and return nodes and meta', async () => {
        const res = await gql(t, keys.acme, QUERY, {
          q: 'anvil',
          where: { category: { eq: 'Tools' } },
          order: ['CREATED_AT_ASC'],
          page: 1,
          perPage: 1,
          aggs: [{ field: 'CATEGORY' }],
        });
        expect(res.body.errors).toBeUndefined();
        expect(res.body.data.products).toEqual({
          nodes: [{ id: p.anvil.id, sku: 'ANV-1' }],
          meta: {
            total: 2,
            page: 1,
            perPage: 1,
            totalPages: 2,
            aggs: { category: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'Tools', doc_count: 2 }] } },
            facets: [{ field: 'category', sumOtherDocCount: 0, buckets: [{ key: 'Tools', docCount: 2 }] }],
          },
        });
      });
      test('errors carry BAD_USER_INPUT (arguments the types refuse) or BAD_REQUEST (list rules)', async () => {
        const res = await gql(t, keys.acme, QUERY, { where: { category: { bogus: 1 } } });
        expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
        const page = await gql(t, keys.acme, QUERY, { perPage: 0 });
        expect(page.body.errors[0].extensions.code).toBe('BAD_REQUEST');
        // The pattern bounds hold on this road too: a typed where, as REST's opts[where].
        const pattern = await gql(t, keys.acme, QUERY, { where: { name: { ilike: '%a_'.repeat(9) } } });
        expect(pattern.body.errors[0]).toMatchObject({ message: 'opts[where]: ilike patterns must have at most 16 wildcards (% and _)', extensions: { code: 'BAD_REQUEST' } });
      });
    });

    if (h.countsStatements) {
      test('a list is a fixed number of SQL statements whatever the page size', async () => {
        const em = t.em();
        const owner = await f.company(em, 'Counted');
        const admin = await f.userWithKey(em, Role.CompanyAdmin, owner);
        const count = async () => {
          t.resetStatements();
          const res = await list('opts[per_page]=100&opts[aggs][]=category&q=item', admin.key);
          expect(res.status).toBe(200);
          return { statements: t.statements.length, rows: res.body.products.length };
        };
        for (let i = 0; i < 5; i++) await f.product(em, owner, { name: `Item ${i}`, category: `C${i % 3}` });
        const five = await count();
        for (let i = 5; i < 50; i++) await f.product(em, owner, { name: `Item ${i}`, category: `C${i % 3}` });
        const fifty = await count();
        expect(five.rows).toBe(5);
        expect(fifty.rows).toBe(50);
        expect(fifty.statements).toBe(five.statements);
      });
    }
  });
}
