import { AnswerBudget } from '../../src/answer-budget';

/** An answer being read in `budget`, and the error it was cut off with, if it was. */
function reading(budget: AnswerBudget) {
  const state: { cut?: Error } = {};
  const answer = budget.open((err) => (state.cut = err));
  return { ...answer, state };
}

describe('AnswerBudget: the engine answers a process reads at once, bounded together', () => {
  test('answers that fit together are read whole; an ended one gives its bytes back', () => {
    const budget = new AnswerBudget(100, 'the engine');
    const a = reading(budget);
    const b = reading(budget);
    a.add(60);
    b.add(40);
    expect(budget.bytes).toBe(100);
    a.end();
    expect(budget.bytes).toBe(40);
    const c = reading(budget);
    c.add(60);
    expect([a.state.cut, b.state.cut, c.state.cut]).toEqual([undefined, undefined, undefined]);
  });

  test('past the bound, the largest answer is cut off, whichever chunk took the sum past it', () => {
    const budget = new AnswerBudget(100, 'the engine');
    const flood = reading(budget);
    const small = reading(budget);
    flood.add(90);
    small.add(20);
    expect(flood.state.cut?.message).toBe("the engine's answers being read hold more than 100 bytes together; the largest (90 bytes) is cut off");
    expect(small.state.cut).toBeUndefined();
    expect(budget.bytes).toBe(20);
    // A cut answer counts nothing more, and its end releases nothing twice.
    flood.add(50);
    flood.end();
    expect(budget.bytes).toBe(20);
  });

  test('an answer larger than the bound alone is cut off, saying so', () => {
    const budget = new AnswerBudget(100, 'the engine');
    const other = reading(budget);
    other.add(10);
    const big = reading(budget);
    big.add(101);
    expect(big.state.cut?.message).toBe("the engine's answer is larger than 100 bytes");
    expect(other.state.cut).toBeUndefined();
    expect(budget.bytes).toBe(10);
  });

  test('many answers flooding at once are cut off until the rest fit', () => {
    const budget = new AnswerBudget(100, 'the engine');
    const answers = Array.from({ length: 20 }, () => reading(budget));
    for (let round = 0; round < 10; round++) for (const a of answers) a.add(7);
    // An answer left whole has read its 70 bytes: one fits in 100, two would not.
    const whole = answers.filter((a) => !a.state.cut);
    expect(whole).toHaveLength(1);
    expect(budget.bytes).toBe(70);
    for (const a of answers) a.end();
    expect(budget.bytes).toBe(0);
  });
});
