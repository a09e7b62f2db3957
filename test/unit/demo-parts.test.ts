import type { EntityManager } from '@mikro-orm/postgresql';
import { DemoSeedContext, orderDemoParts, type DemoPart } from '../../src/modules/demo/demo-part';
import { modules } from '../../src/modules';

/** The demo seed's ordering (src/modules/demo/demo-part.ts): each part after those it names, otherwise in the order given. */
const part = <T>(name: string, seed: (demo: DemoSeedContext) => T, after: DemoPart[] = []): DemoPart<T> => ({ name, after, seed });

test('a part runs after the parts it names, the others keep the order given', () => {
  const a = part('a', () => 1);
  const b = part('b', () => 2, [a]);
  const c = part('c', () => 3);
  const d = part('d', () => 4, [c, b]);
  expect(orderDemoParts([d, c, b, a]).map((p) => p.name)).toEqual(['c', 'a', 'b', 'd']);
  expect(orderDemoParts([a, b, c, d]).map((p) => p.name)).toEqual(['a', 'b', 'c', 'd']);
});

test('a part that names one nobody contributes, or runs after itself, is refused', () => {
  const a = part('a', () => 1);
  expect(() => orderDemoParts([part('b', () => 2, [a])])).toThrow('demo part b runs after a, which no module contributes');
  const after: DemoPart[] = [];
  const loop = part('loop', () => 0, after);
  after.push(loop);
  expect(() => orderDemoParts([loop])).toThrow('demo parts: loop runs after itself');
});

test('a part reads what the parts it names returned, and nothing else', () => {
  const a = part('a', () => 'from a');
  const read: string[] = [];
  const b = part('b', (demo) => read.push(`b read ${demo.get(a)}`), [a]);
  const sneaky = part('sneaky', (demo) => demo.get(a));
  const demo = new DemoSeedContext({} as EntityManager, {});
  demo.run(a);
  demo.run(b);
  expect(read).toEqual(['b read from a']);
  expect(() => demo.run(sneaky)).toThrow('demo part sneaky reads a: name it in its after');
});

test("the modules' parts order: every part a part names is in the list, the company first and the users after the stores", () => {
  const names = orderDemoParts(modules.flatMap((m) => m.demo ?? [])).map((p) => p.name);
  expect(names[0]).toBe('company');
  expect(names.indexOf('user')).toBeGreaterThan(names.indexOf('company-retailer-location'));
  expect(names.indexOf('stock')).toBeGreaterThan(names.indexOf('product'));
  expect(new Set(names).size).toBe(names.length);
});
