import { groupNested, planNested, planNestedOne } from '../../src/db/nested-write';

const a = { id: 'a', v: 1 };
const b = { id: 'b', v: 2 };
const ops = (steps: ReturnType<typeof planNested>) =>
  steps.map((s) => (s.op === 'create' || s.op === 'unknown' ? `${s.op}:${JSON.stringify(s.item)}` : `${s.op}:${s.entity.id}`));

describe('planNested (SPEC section 1 nested items)', () => {
  test('an item without id adds a record; with _destroy it is ignored', () => {
    expect(ops(planNested([{ x: 1 }, { _destroy: true }, { id: null, x: 2 }] as any[], [a]))).toEqual(['create:{"x":1}', 'create:{"id":null,"x":2}']);
  });

  test("an item naming a stored id updates it, or removes it with _destroy", () => {
    const steps = planNested([{ id: 'a', x: 1 }, { id: 'b', _destroy: true }], [a, b]);
    expect(ops(steps)).toEqual(['update:a', 'remove:b']);
    expect(steps[0]).toEqual({ op: 'update', entity: a, item: { id: 'a', x: 1 } });
  });

  test('an id the collection does not hold is unknown, in the order of the items', () => {
    expect(ops(planNested([{ x: 1 }, { id: 'c' }, { id: 'c', _destroy: true }, { id: '' }], [a]))).toEqual([
      'create:{"x":1}',
      'unknown:{"id":"c"}',
      'unknown:{"id":"c","_destroy":true}',
      'unknown:{"id":""}',
    ]);
  });

  test('an id named twice: its first item decides', () => {
    expect(ops(planNested([{ id: 'a', x: 1 }, { id: 'a', _destroy: true }, { id: 'b', _destroy: true }, { id: 'b' }], [a, b]))).toEqual([
      'update:a',
      'remove:b',
    ]);
  });

  test('replace removes the stored records no item names, after the items', () => {
    expect(ops(planNested([{ id: 'b' }, { x: 1 }], [a, b], { replace: true }))).toEqual(['update:b', 'create:{"x":1}', 'remove:a']);
    expect(ops(planNested(undefined, [a, b], { replace: true }))).toEqual(['remove:a', 'remove:b']);
    expect(ops(planNested(null, [a, b]))).toEqual([]);
  });

  test('groupNested groups the steps by what they do', () => {
    const plan = groupNested(planNested([{ id: 'a' }, { id: 'b', _destroy: true }, { x: 1 }, { id: 'z' }], [a, b]));
    expect(plan).toEqual({ updates: [{ entity: a, item: { id: 'a' } }], removes: [b], creates: [{ x: 1 }], unknown: [{ id: 'z' }] });
  });
});

describe('planNestedOne (a single nested object)', () => {
  test('null or _destroy removes; another id is unknown; otherwise update or create', () => {
    expect(planNestedOne(null, a)).toEqual({ op: 'remove' });
    expect(planNestedOne({ _destroy: true }, a)).toEqual({ op: 'remove' });
    expect(planNestedOne({ id: 'a', _destroy: true }, a)).toEqual({ op: 'remove' });
    expect(planNestedOne({ id: 'b', _destroy: true }, a)).toEqual({ op: 'unknown' });
    expect(planNestedOne({ id: 'b' }, null)).toEqual({ op: 'unknown' });
    expect(planNestedOne({ id: 'a' }, a)).toEqual({ op: 'update', entity: a });
    expect(planNestedOne({}, a)).toEqual({ op: 'update', entity: a });
    expect(planNestedOne({}, null)).toEqual({ op: 'create' });
  });
});
