// `q` on PostgreSQL: the word patterns, the products' stored text, and the index that serves them.
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { productSearch } from '../../src/modules/product/product.search';
import { planSearch } from '../../src/search/postgres.queries';
import { textExpression } from '../../src/search/text';

let t: TestApp;
const one = async (sql: string, params: unknown[] = []) => (await t.em().getConnection().execute(sql, params as any[]))[0];

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('leadnet_word_pattern', () => {
  test.each<[string, string, string, boolean]>([
    ['Anvil Deluxe', 'anvil', 'word', true],
    ['Anvil Deluxe', 'anv', 'word', false],
    ['Anvil Deluxe', 'anv', 'prefix', true],
    ['Anvil Deluxe', 'nvil', 'prefix', false],
    ['Anvil Deluxe', 'deluxe', 'prefix', true],
    ['Anvil Deluxe', 'ANVIL', 'word', true],
    ['Crème Brûlée', 'creme', 'word', true],
    ['Creme Brulee', 'crème', 'word', true],
    ['Straße', 'strasse', 'word', true],
    ['Anvil', 'anvl', 'fuzzy', true],
    ['Anvil', 'anivl', 'fuzzy', true],
    ['Anvil', 'anvill', 'fuzzy', true],
    ['Anvil', 'abvil', 'fuzzy', true],
    ['Anvil', 'nvil', 'fuzzy', true],
    ['Anvil', 'anvl', 'prefix', false],
    ['Anvil', 'nvail', 'fuzzy', false],
    ['Anvil', 'anx', 'fuzzy', false],
    ['Lampshade', 'lamb', 'fuzzy', true],
    ['Lampshade', 'lmapshade', 'fuzzy', true],
    ['Lampshade', 'lmapshdae', 'fuzzy', false],
    ['xzy', 'x.y', 'prefix', false],
    ['a+b', 'b', 'prefix', true],
    ['50% off', '50', 'word', true],
    ['o\'brien', 'brien', 'word', true],
    ['under_score', 'score', 'word', true],
    ['order 12345', '12346', 'fuzzy', false],
    ['order 12345', '1234', 'fuzzy', true],
    ['shopper12 x', 'shopper13', 'fuzzy', false],
    ['shopper12 x', 'shoper12', 'fuzzy', false],
    ['Bräune', 'braunr', 'fuzzy', true],
  ])('%p ~ %p (%s): %p', async (text, word, mode, expected) => {
    const row = await one('select leadnet_search_text(?) ~ leadnet_word_pattern(?, ?) as hit', [text, word, mode]);
    expect(row.hit).toBe(expected);
  });

  test('regular-expression characters in a word are literal', async () => {
    for (const word of ['a.b', '(x', '[y]', 'z*', '\\', '^$', '?', '|', '{2}']) {
      const row = await one('select leadnet_search_text(?) ~ leadnet_word_pattern(?, ?) as hit', ['nothing here', word, 'fuzzy']);
      expect(row.hit).toBe(false);
    }
  });
});

test('q on a document without text fields matches nothing, whatever the order', async () => {
  const noText = { ...productSearch, textSql: undefined, fields: { id: productSearch.fields.id, created_at: productSearch.fields.created_at } };
  for (const order of [null, { _score: 'desc' as const }]) {
    const plan = planSearch(noText, { q: 'anvil', order, aggs: ['id'], page: 1, perPage: 5, scope: {} });
    for (const statement of [plan.page, plan.count, plan.facets!]) {
      expect(await t.em().getConnection().execute(statement.sql, statement.bindings as any[])).toBeDefined();
    }
    expect((await t.em().getConnection().execute(plan.count.sql, plan.count.bindings as any[]))[0].total).toBe(0);
  }
});

describe("the products' stored search text", () => {
  test('equals the text expression of product.search.ts for every product', async () => {
    const em = t.em();
    const acme = await f.company(em);
    await f.product(em, acme, { sku: 'Ä-1', name: 'Crème Brûlée', category: null, externalId: 'ÉXT' });
    await f.product(em, acme, { sku: 'B-2', name: 'Plain', category: 'Straße' });
    const expression = textExpression(productSearch);
    const row = await one(`select count(*)::int as n, count(*) filter (where p.search_text is distinct from ${expression})::int as different from products p`);
    expect(row).toEqual({ n: 2, different: 0 });
    const updated = await one(`update products p set name = 'Ünïcode' where sku = 'B-2' returning p.search_text = ${expression} as same, p.search_text`);
    expect(updated).toEqual({ same: true, search_text: 'b-2 unicode strasse ' });
  });

  test('a q search is served by the trigram index', async () => {
    const plan = planSearch(productSearch, { q: 'wardrobe lanterns', page: 1, perPage: 50, scope: {} });
    const lines = await t.em().transactional(async (em) => {
      await em.execute('set local enable_seqscan = off');
      return em.execute(`explain ${plan.count.sql}`, plan.count.bindings as any[]);
    });
    expect(lines.map((l: any) => l['QUERY PLAN']).join('\n')).toContain('products_search_text_trgm_index');
  });
});
