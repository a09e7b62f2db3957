import { normalizeAggs, normalizeOrder, normalizePage } from '../../src/search/options';
import { listRequest, listVariablesReader, nullify, parseInclude, parseQueryString } from '../../src/rest/query';
import { queryWords } from '../../src/search/text';

const badRequest = expect.objectContaining({ code: 'BAD_REQUEST' });

describe('page and per_page', () => {
  test.each<[unknown, unknown, { page: number; perPage: number }]>([
    [undefined, undefined, { page: 1, perPage: 50 }],
    ['', null, { page: 1, perPage: 50 }],
    ['2', '10', { page: 2, perPage: 10 }],
    [3, 1, { page: 3, perPage: 1 }],
    ['1', '500', { page: 1, perPage: 500 }],
    ['1', '501', { page: 1, perPage: 500 }],
    ['1', '100000', { page: 1, perPage: 500 }],
  ])('page %p per_page %p', (page, perPage, expected) => {
    expect(normalizePage(page, perPage)).toEqual(expected);
  });

  test.each([
    ['0', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['abc', undefined],
    ['1e3', undefined],
    [[1], undefined],
    ['99999999999999999999', undefined],
    [undefined, '0'],
    [undefined, '-2'],
    [undefined, 'ten'],
    [undefined, '2.5'],
  ])('page %p per_page %p is a 400', (page, perPage) => {
    expect(() => normalizePage(page, perPage)).toThrow(badRequest);
  });
});

describe('order', () => {
  test.each<[unknown, Array<[string, string]>]>([
    [null, []],
    ['', []],
    ['name', [['name', 'asc']]],
    [{ created_at: 'desc' }, [['created_at', 'desc']]],
    [{ a: 'DESC', b: 'asc' }, [['a', 'desc'], ['b', 'asc']]],
    [[{ a: 'desc' }, { b: 'asc' }], [['a', 'desc'], ['b', 'asc']]],
    [['a', { b: 'desc' }], [['a', 'asc'], ['b', 'desc']]],
    [{ a: { order: 'desc' } }, [['a', 'desc']]],
  ])('%p', (order, expected) => {
    expect(normalizeOrder(order)).toEqual(expected);
  });

  test.each([[{ a: 'up' }], [{ a: null }], [5], [[5]]])('%p is a 400', (order) => {
    expect(() => normalizeOrder(order)).toThrow(badRequest);
  });
});

describe('aggs', () => {
  test('a list, a name, or options per field', () => {
    expect(normalizeAggs(['status', 'city'])).toEqual([
      { field: 'status', limit: 1000, minDocCount: 1, where: null, orderByKey: false, direction: 'desc' },
      { field: 'city', limit: 1000, minDocCount: 1, where: null, orderByKey: false, direction: 'desc' },
    ]);
    expect(normalizeAggs('status')).toHaveLength(1);
    expect(normalizeAggs({ status: { limit: '5', min_doc_count: '2', order: { _key: 'asc' }, where: { a: 1 } } })).toEqual([
      { field: 'status', limit: 5, minDocCount: 2, where: { a: 1 }, orderByKey: true, direction: 'asc' },
    ]);
    expect(normalizeAggs({ status: null, city: '' })).toHaveLength(2);
    expect(normalizeAggs([{ status: { limit: 3 } }])[0].limit).toBe(3);
    expect(normalizeAggs({ status: { limit: null, order: { _term: 'desc' } } })[0]).toMatchObject({ limit: 1000, orderByKey: true, direction: 'desc' });
    expect(normalizeAggs(null)).toEqual([]);
    expect(normalizeAggs({ 0: 'status', city: { limit: '5' } }).map((a) => [a.field, a.limit])).toEqual([['status', 1000], ['city', 5]]);
  });

  test('limits are capped; min_doc_count 0 counts as 1', () => {
    expect(normalizeAggs({ a: { limit: 1e9, min_doc_count: 0 } })[0]).toMatchObject({ limit: 10000, minDocCount: 1 });
  });

  test.each([
    [{ a: { limit: 0 } }],
    [{ a: { limit: 'x' } }],
    [{ a: { min_doc_count: -1 } }],
    [{ a: { order: { name: 'asc' } } }],
    [{ a: { order: { _count: 'sideways' } } }],
    [{ a: 5 }],
    [[5]],
    [5],
  ])('%p is a 400', (aggs) => {
    expect(() => normalizeAggs(aggs)).toThrow(badRequest);
  });
});

describe('query string', () => {
  const flat = (r: ReturnType<typeof listRequest>) => ({ ...r.variables, ...r.options });

  test('nested deeper than qs defaults, long lists, null strings, index-keyed lists', () => {
    const many = Array.from({ length: 30 }, (_, i) => `opts[where][id][]=v${i}`).join('&');
    const parsed = parseQueryString(`/v1/x?q=a+b&${many}&opts[where][_or][0][_and][0][status]=null&opts[order][created_at]=desc&opts[aggs][]=status`);
    const vars = flat(listRequest(parsed));
    expect(vars.q).toBe('a b');
    expect((vars.where as any).id).toHaveLength(30);
    expect((vars.where as any)._or).toEqual([{ _and: [{ status: null }] }]);
    expect(vars.order).toEqual({ created_at: 'desc' });
    expect(vars.aggs).toEqual(['status']);
    expect(vars).toMatchObject({ page: 1, perPage: 50 });
  });

  test('qs turns a list longer than its limit into an index-keyed object: it becomes a list again', () => {
    const many = Array.from({ length: 1500 }, (_, i) => `opts[where][id][]=v${i}`).join('&');
    const vars = flat(listRequest(parseQueryString(`?${many}`)));
    expect((vars.where as any).id).toHaveLength(1500);
    expect((vars.where as any).id[1499]).toBe('v1499');
  });

  test('a prototype name as a parameter or key is a 400 (issue 40: qs drops `__proto__` without a word); as a value it is data', () => {
    for (const [query, name] of [
      ['?opts[where][constructor]=x', 'constructor'],
      ['?opts[where][toString][gt]=1', 'toString'],
      ['?opts[__proto__][x]=1', '__proto__'],
      ['?include[__proto__]=x', '__proto__'],
      ['?toString=1', 'toString'],
      ['?%5F%5Fproto%5F%5F%5Bx%5D=1', '__proto__'],
    ]) {
      expect(() => parseQueryString(query)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringContaining(`no parameter or key is named ${name}`) }));
    }
    expect(flat(listRequest(parseQueryString('?q=constructor&opts[where][status]=__proto__')))).toMatchObject({ q: 'constructor', where: { status: '__proto__' } });
  });

  test('nullify', () => {
    expect(nullify({ a: 'null', b: ['null', 'x'], c: { 0: 'a', 1: 'null' }, d: { 1: 'b', 0: 'a' }, e: { x: 'null' } })).toEqual({
      a: null,
      b: [null, 'x'],
      c: ['a', null],
      d: ['a', 'b'],
      e: { x: null },
    });
  });

  test('page rules apply to the query string', () => {
    expect(flat(listRequest({ opts: { page: '2', per_page: '600' } }))).toMatchObject({ page: 2, perPage: 500 });
    expect(() => listRequest({ opts: { page: '0' } })).toThrow(badRequest);
    expect(() => listRequest({ opts: 'x' })).toThrow(badRequest);
    expect(() => listRequest({ q: ['a', 'b'] })).toThrow(badRequest);
  });

  test('include', () => {
    expect(parseInclude(undefined, ['a', 'b'])).toEqual({ a: true, b: true });
    expect(parseInclude('*', ['a', 'b'])).toEqual({ a: true, b: true });
    expect(parseInclude('a, nope', ['a', 'b'])).toEqual({ a: true, b: false });
    for (const include of [['a', 'b'], { a: 'b' }, { a: { b: 'c' } }]) expect(() => parseInclude(include, ['a', 'b'])).toThrow(badRequest);
  });
});

describe('q words', () => {
  test.each<[string | null, string[]]>([
    [null, []],
    ['*', []],
    ['  ', []],
    ['!!', []],
    ['Anvil  Deluxe', ['anvil', 'deluxe']],
    ['"anvil", (deluxe)!', ['anvil', 'deluxe']],
    ['anv-2', ['anv', '2']],
    ['john@example.com', ['john', 'example', 'com']],
    ['Crème brûlée crème', ['crème', 'brûlée']],
    ['a\u0000b', ['a', 'b']],
  ])('%p', (q, words) => {
    expect(queryWords(q)).toEqual(words);
  });
});

describe("a list's variables, kept per query string", () => {
  const read = listVariablesReader(['emails', 'location']);

  test('the same query string gives the same frozen object, whatever the path; another gives its own', () => {
    const first = read('/v1/leads?opts[page]=2&include=emails&opts[where][status]=Won');
    expect(first).toEqual({ q: null, page: 2, perPage: 50, opts: { where: { status: 'Won' }, order: null, aggs: null }, include_emails: true, include_location: false });
    expect(read('/v1/Leads/?opts[page]=2&include=emails&opts[where][status]=Won')).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen((first.opts as any).where)).toBe(true);
    expect(() => ((first.opts as any).where.status = 'Lost')).toThrow(TypeError);
    expect(read('/v1/leads?opts[page]=3&include=emails&opts[where][status]=Won')).toMatchObject({ page: 3 });
    expect(read('/v1/leads')).toMatchObject({ page: 1, perPage: 50, opts: null, include_emails: true, include_location: true });
  });

  test('a query string that is a 400 is read again each time; a very long one is not kept', () => {
    for (let i = 0; i < 2; i++) expect(() => read('/v1/leads?opts[page]=0')).toThrow(badRequest);
    const long = `/v1/leads?${'opts[where][id][]=00000000-0000-4000-8000-000000000000&'.repeat(60)}`;
    expect(read(long)).toEqual(read(long));
    expect(read(long)).not.toBe(read(long));
  });
});
