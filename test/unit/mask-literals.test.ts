import { maskLiterals } from '../../src/db/pool';

/** A statement's text in a span (docs/tracing.md): its shape, never a value written into it. */
test('string literals become ?, quotes doubled inside them included', () => {
  expect(maskLiterals(`insert into emails (email, lead_id) values ('jo''s@example.com', 'a1'), ('x@y.z', 'b2')`)).toBe('insert into emails (email, lead_id) values (?, ?), (?, ?)');
  expect(maskLiterals('select * from leads where id = $1')).toBe('select * from leads where id = $1');
});

test('a literal cut by the length bound, or an escape the pattern does not know, ends the text: no part of it is kept', () => {
  const long = `select '${'secret '.repeat(1000)}'`;
  expect(maskLiterals(long)).toBe('select ?');
  expect(maskLiterals(`select E'it\\'s private', 'y'`)).not.toMatch(/private|s /);
  expect(maskLiterals(`select 1 -- it's a comment with a@b.c`)).toBe('select 1 -- it?');
});
