import fc from 'fast-check';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { hostileValue, writeJson } from '../support/fuzz';
import { searchDocuments } from '../../src/modules';
import { engineUnderTest } from '../support/search-engine';
import { searchEngineClient } from '../../src/search/factory';

/**
 * Property: the contract's list options (`opts: ListQueryOptions`, the JSON `where`, `order` and `aggs`
 * REST sends as `opts[...]`) reach GraphQL's list fields as they are, so a dashboard can send anything
 * in them. Whatever it sends (plausible trees of real field names and operators, hostile values, JSON
 * thousands of levels deep, long lists, combined with the typed arguments) over any list and as any
 * role: never a 5xx, never an internal error, and every refusal a BAD_REQUEST, BAD_USER_INPUT (or FORBIDDEN for a list the role may not read) with a
 * message.
 */
const LISTS: Record<string, string> = {
  leads: 'leads',
  leadActivities: 'lead_activities',
  companyRetailers: 'company_retailers',
  companyRetailerLocations: 'company_retailer_locations',
  products: 'products',
  companies: 'companies',
  retailers: 'retailers',
  territories: 'territories',
  users: 'users',
};
const OPERATORS = ['eq', 'not_eq', 'in', 'not_in', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'contains', 'exists', 'missing', 'bogus'];
const REFUSALS = new Set(['BAD_REQUEST', 'BAD_USER_INPUT', 'FORBIDDEN']);

// With SEARCH_URL (CI's engine suites), the same property against the search engine's query builder.
const engine = engineUnderTest();
const prefix = `leadnet_opts_fuzz_${process.pid}_`;

let t: TestApp;
let keys: string[];
beforeAll(async () => {
  t = await createTestApp(engine ? { SEARCH_BACKEND: engine.backend, SEARCH_URL: engine.url, ELASTICSEARCH_INDEX_PREFIX: prefix } : {});
  const r = await roles(t.em());
  keys = Object.values(r.users).map((u) => u.key);
  await createLead(t, r.users.companyAdmin.key, quoteRequest({ assignee_id: r.net.storeNorth.id }));
});
afterAll(async () => {
  if (t && engine) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
  await t?.close();
});

function optsFor(list: string): fc.Arbitrary<Record<string, unknown>> {
  const doc = searchDocuments.find((d) => d.name === LISTS[list]);
  const field = fc.oneof({ arbitrary: fc.constantFrom(...Object.keys(doc?.fields ?? { id: null })), weight: 4 }, { arbitrary: fc.constantFrom('nope', '', '__proto__', 'a.b', 'id;drop'), weight: 1 });
  const leaf = fc.oneof(
    hostileValue,
    fc.array(hostileValue, { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...OPERATORS), hostileValue, { maxKeys: 2 }),
  );
  const where = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.dictionary(field, leaf, { maxKeys: 3 }),
      fc.record({ _and: fc.array(tie('tree'), { maxLength: 3 }) }),
      fc.record({ _or: fc.oneof(fc.array(tie('tree'), { maxLength: 3 }), hostileValue) }),
      fc.record({ _not: tie('tree') }),
    ),
  })).tree;
  const order = fc.oneof(field, fc.dictionary(field, fc.oneof(fc.constantFrom('asc', 'desc', 'ASC', 'up'), hostileValue), { maxKeys: 2 }), fc.array(fc.dictionary(field, fc.constantFrom('asc', 'desc'), { maxKeys: 1 }), { maxLength: 3 }));
  const aggs = fc.oneof(
    fc.array(field, { maxLength: 5 }),
    fc.dictionary(field, fc.record({ limit: hostileValue, where: fc.oneof(where, hostileValue), order: hostileValue, min_doc_count: hostileValue }, { requiredKeys: [] }), { maxKeys: 2 }),
  );
  const part = <T>(a: fc.Arbitrary<T>) => fc.oneof({ arbitrary: a, weight: 3 }, { arbitrary: hostileValue, weight: 1 });
  return fc.record({ where: part(where), order: part(order), aggs: part(aggs) }, { requiredKeys: [] });
}

const request$ = fc
  .constantFrom(...Object.keys(LISTS))
  .chain((list) =>
    fc.record({
      list: fc.constant(list),
      opts: fc.oneof({ arbitrary: optsFor(list), weight: 6 }, { arbitrary: hostileValue, weight: 1 }),
      page: fc.option(fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant(2 ** 31 - 1)), { nil: undefined }),
      perPage: fc.option(fc.integer({ min: -1, max: 2000 }), { nil: undefined }),
      q: fc.option(fc.oneof(fc.string(), fc.constantFrom('*', '%', '\u0000', 'x'.repeat(5000))), { nil: undefined }),
      key: fc.nat(),
    }),
  );

test('no opts a dashboard sends gets a 5xx or an internal error; every refusal says what is wrong', async () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 250);
  await fc.assert(
    fc.asyncProperty(request$, async ({ list, opts, page, perPage, q, key }) => {
      const query = `query ($opts: ListQueryOptions, $page: Int, $perPage: Int, $q: String) {
        ${list}(opts: $opts, page: $page, perPage: $perPage, q: $q) { nodes { id } meta { total } }
      }`;
      const res = await request(t.app)
        .post('/graphql')
        .set('Content-Type', 'application/json')
        .set('X-Api-Key', keys[key % keys.length]!)
        .send(writeJson({ query, variables: { opts, page, perPage, q } }));
      const errors: Array<{ message?: string; extensions?: { code?: string } }> = res.body?.errors ?? [];
      const bad = res.status >= 500 || errors.some((e) => !REFUSALS.has(e.extensions?.code ?? '') || !e.message);
      if (bad) throw new Error(`${res.status} for ${list} opts=${writeJson(opts).slice(0, 400)} page=${page} perPage=${perPage}\nanswer: ${JSON.stringify(res.body).slice(0, 600)}`);
    }),
    { numRuns: runs, endOnFailure: true },
  );
}, 300_000);
