// `where` parsing, coercion and SQL, as pure functions. Their meaning on real rows is in the
// conformance suite (conformance.ts).
import { coerce, compileWhere, parseWhere, UNMATCHABLE, FALSE, TRUE } from '../../src/search/where';
import type { SearchDocument } from '../../src/search/types';

const doc: SearchDocument = {
  name: 'things',
  from: 'things t',
  alias: 't',
  fields: {
    name: { sql: 't.name', type: 'string' },
    price: { sql: 't.price', type: 'number' },
    active: { sql: 't.active', type: 'boolean' },
    at: { sql: 't.at', type: 'date' },
    owner_id: { sql: 't.owner_id', type: 'uuid' },
    tags: { sql: 't.tags', type: 'string', array: true },
    labels: { sql: 'array(select x.label from labels x where x.thing_id = t.id)', type: 'string', array: true, each: { rows: 'labels x where x.thing_id = t.id', value: 'x.label' } },
  },
};

describe('coerce', () => {
  test.each<[string, unknown, unknown]>([
    ['string', 'x', 'x'],
    ['string', 12, '12'],
    ['string', true, 'true'],
    ['string', { a: 1 }, UNMATCHABLE],
    ['string', 'a\u0000b', UNMATCHABLE],
    ['string', null, null],
    ['number', '12.5', 12.5],
    ['number', ' 7 ', 7],
    ['number', 3, 3],
    ['number', '', UNMATCHABLE],
    ['number', 'abc', UNMATCHABLE],
    ['number', 'Infinity', UNMATCHABLE],
    ['number', true, UNMATCHABLE],
    ['boolean', 'true', true],
    ['boolean', 'TRUE', true],
    ['boolean', '1', true],
    ['boolean', 0, false],
    ['boolean', 'false', false],
    ['boolean', 'yes', UNMATCHABLE],
    ['date', '2026-01-02', '2026-01-02T00:00:00.000Z'],
    ['date', '2026-01', '2026-01-01T00:00:00.000Z'],
    ['date', '2026', '2026-01-01T00:00:00.000Z'],
    ['date', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
    ['date', '2026-01-02T03:04:05.123456Z', '2026-01-02T03:04:05.123Z'],
    ['date', '2026-01-02 03:04', '2026-01-02T03:04:00.000Z'],
    ['date', '2026-01-02T03:04:05+02:00', '2026-01-02T01:04:05.000Z'],
    ['date', '2026-01-02T03:04:05-0130', '2026-01-02T04:34:05.000Z'],
    ['date', '2026-01-02T03:04:05+02', '2026-01-02T01:04:05.000Z'],
    ['date', '1767225600000', '2026-01-01T00:00:00.000Z'],
    ['date', 1767225600000, '2026-01-01T00:00:00.000Z'],
    ['date', '2026-02-30', UNMATCHABLE],
    ['date', '2026-13-01', UNMATCHABLE],
    ['date', '2026-01-02T25:00', UNMATCHABLE],
    ['date', 'March 7', UNMATCHABLE],
    ['date', '1', '1970-01-01T00:00:00.001Z'],
    ['date', '99999999999999999', UNMATCHABLE],
    ['date', {}, UNMATCHABLE],
    ['uuid', '6F1C2D3E-4A5B-4C6D-8E7F-8091A2B3C4D5', '6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5'],
    ['uuid', '6f1c2d3e', UNMATCHABLE],
    ['uuid', 5, UNMATCHABLE],
  ])('%s %p -> %p', (type, value, expected) => {
    expect(coerce({ type: type as any }, value)).toEqual(expected);
  });
});

describe('parseWhere', () => {
  test('constants fold: an empty list, an unknown field, an impossible value', () => {
    expect(parseWhere(doc, { name: [] })).toEqual(FALSE);
    expect(parseWhere(doc, { nope: 'x', name: 'a' })).toEqual(FALSE);
    expect(parseWhere(doc, { price: 'abc' })).toEqual(FALSE);
    expect(parseWhere(doc, { _not: { price: 'abc' } })).toEqual(TRUE);
    expect(parseWhere(doc, null)).toEqual(TRUE);
    expect(parseWhere(doc, {})).toEqual(TRUE);
  });

  test('values are coerced and deduplicated', () => {
    expect(parseWhere(doc, { price: ['1', 1, 'x', 2] })).toEqual({ kind: 'terms', field: 'price', values: [1, 2] });
  });

  test('nested ands and ors flatten', () => {
    expect(parseWhere(doc, { _and: [{ name: 'a' }, { _and: [{ price: 1 }, { active: true }] }] })).toEqual({
      kind: 'and',
      parts: [
        { kind: 'terms', field: 'name', values: ['a'] },
        { kind: 'terms', field: 'price', values: [1] },
        { kind: 'terms', field: 'active', values: [true] },
      ],
    });
  });

  test('_or and _and accept index-keyed objects (query-string form)', () => {
    expect(parseWhere(doc, { _or: { 0: { name: 'a' }, 1: { name: 'b' } } })).toEqual({
      kind: 'or',
      parts: [
        { kind: 'terms', field: 'name', values: ['a'] },
        { kind: 'terms', field: 'name', values: ['b'] },
      ],
    });
  });

  test('excluding a field drops its top-level condition only', () => {
    const where = { name: 'a', price: 1, _or: [{ name: 'b' }, { price: 2 }], _not: { name: 'c' } };
    expect(parseWhere(doc, where, 'name')).toEqual({
      kind: 'and',
      parts: [
        { kind: 'terms', field: 'price', values: [1] },
        {
          kind: 'or',
          parts: [
            { kind: 'terms', field: 'name', values: ['b'] },
            { kind: 'terms', field: 'price', values: [2] },
          ],
        },
        { kind: 'not', part: { kind: 'terms', field: 'name', values: ['c'] } },
      ],
    });
  });

  test.each([
    ['an unknown operator', { name: { near: 1 } }],
    ['an unknown operator on an unknown field', { nope: { near: 1 } }],
    ['_or that is not a list', { _or: 'x' }],
    ['_not that is not an object', { _not: ['x'] }],
    ['a list as where', [{ name: 'a' }]],
  ])('%s is a 400', (_name, where) => {
    expect(() => parseWhere(doc, where)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  test('exists takes a boolean; anything else matches nothing', () => {
    expect(parseWhere(doc, { at: { exists: 'maybe' } })).toEqual(FALSE);
  });

  test('a LIKE pattern ending in a lone backslash reads it as a literal', () => {
    expect(parseWhere(doc, { name: { like: 'a\\' } })).toEqual({ kind: 'pattern', field: 'name', op: 'like', value: 'a\\\\' });
    expect(parseWhere(doc, { name: { like: 'a\\\\' } })).toEqual({ kind: 'pattern', field: 'name', op: 'like', value: 'a\\\\' });
  });
});

describe('compileWhere', () => {
  test('scalar conditions bind their values, cast to the field type', () => {
    expect(compileWhere(doc, { price: { gte: '2' }, name: ['a', 'b'], owner_id: null })).toEqual({
      sql: '(t.price >= ?::double precision) and (t.name = any(?::text[])) and (t.owner_id is null)',
      bindings: [2, ['a', 'b']],
    });
  });

  test('not is null-safe', () => {
    expect(compileWhere(doc, { name: { not: 'a' } })).toEqual({ sql: 'not coalesce((t.name = ?::text), false)', bindings: ['a'] });
  });

  test('array fields test their elements', () => {
    expect(compileWhere(doc, { tags: 'a' })).toEqual({ sql: 'exists (select 1 from unnest(t.tags) as v where v = ?::text)', bindings: ['a'] });
    expect(compileWhere(doc, { tags: null })).toEqual({ sql: 'coalesce(cardinality(t.tags), 0) = 0', bindings: [] });
  });

  test('array fields read through their rows test those rows (a semi-join PostgreSQL can drive from their indexes)', () => {
    expect(compileWhere(doc, { labels: ['a', 'b'] })).toEqual({
      sql: 'exists (select 1 from labels x where x.thing_id = t.id and (x.label = any(?::text[])))',
      bindings: [['a', 'b']],
    });
    expect(compileWhere(doc, { labels: null })).toEqual({ sql: 'not exists (select 1 from labels x where x.thing_id = t.id)', bindings: [] });
  });

  test('prefix escapes LIKE wildcards', () => {
    expect(compileWhere(doc, { name: { prefix: '50%_\\' } })).toEqual({ sql: 't.name::text like ?', bindings: ['50\\%\\_\\\\%'] });
  });
});
