import { WorkBudget } from '../../src/work-budget';

/** src/work-budget.ts: units in flight bounded together, turns taken in order. */
const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
};

test('takes that fit run at once; the next waits until enough is handed back', async () => {
  const budget = new WorkBudget(10);
  const a = await budget.take(6);
  const b = await budget.take(4);
  expect(budget.usage()).toEqual({ used: 10, waiting: 0 });
  const c = budget.take(5);
  expect(await settled(c)).toBe(false);
  a();
  expect(await settled(c)).toBe(true);
  expect(budget.usage()).toEqual({ used: 9, waiting: 0 });
  b();
  (await c)();
  expect(budget.usage()).toEqual({ used: 0, waiting: 0 });
});

test('first come, first served: a small take behind a large one waits, though it would fit', async () => {
  const budget = new WorkBudget(10);
  const first = await budget.take(8);
  const large = budget.take(5);
  const small = budget.take(1);
  expect(await settled(small)).toBe(false);
  first();
  expect(await settled(large)).toBe(true);
  expect(await settled(small)).toBe(true);
  expect(budget.usage()).toEqual({ used: 6, waiting: 0 });
});

test('a take larger than the whole budget takes all of it and runs alone', async () => {
  const budget = new WorkBudget(10);
  const huge = await budget.take(10_000);
  expect(budget.usage().used).toBe(10);
  const next = budget.take(1);
  expect(await settled(next)).toBe(false);
  huge();
  expect(await settled(next)).toBe(true);
});

test('handing back twice counts once; capacity 0 bounds nothing', async () => {
  const budget = new WorkBudget(4);
  const a = await budget.take(3);
  a();
  a();
  expect(budget.usage()).toEqual({ used: 0, waiting: 0 });
  const open = new WorkBudget(0);
  await Promise.all(Array.from({ length: 5 }, () => open.take(1_000)));
  expect(open.usage()).toEqual({ used: 0, waiting: 0 });
});

test('run: work inside a turn of the same budget runs at once; a turn is handed back when its work throws', async () => {
  const budget = new WorkBudget(4);
  const other = new WorkBudget(4);
  const waiter = await budget.take(1);
  // Behind a waiting take of the whole budget, a nested run would wait forever if it took again.
  const outer = budget.run(3, async () => {
    const queued = budget.take(4);
    const inner = await budget.run(3, async () => budget.usage());
    const another = await other.run(2, async () => other.usage());
    return { inner, another, queued };
  });
  const { inner, another, queued } = await outer;
  expect(inner).toEqual({ used: 4, waiting: 1 });
  expect(another).toEqual({ used: 2, waiting: 0 });
  expect(other.usage().used).toBe(0);
  waiter();
  (await queued)();
  await expect(budget.run(2, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(budget.usage()).toEqual({ used: 0, waiting: 0 });
});
