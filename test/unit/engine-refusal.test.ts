import { tooComplexReason } from '../../src/search/elasticsearch/unavailable';

// The shapes of an engine's 400 for a search too costly to build (seen on OpenSearch 2.19 and
// Elasticsearch 8.17): the cause as a root cause of its own type, or quoted by a query_shard_exception.
const refusal = (error: unknown, statusCode = 400) => ({ meta: { statusCode, body: { error, status: statusCode } } });

test('a too complex search is recognised in either shape the engine answers it', () => {
  const own = refusal({
    root_cause: [{ type: 'too_complex_to_determinize_exception', reason: 'Determinizing automaton with 1500 states and 2997 transitions would require more than 10000 effort.' }],
    type: 'search_phase_execution_exception',
  });
  expect(tooComplexReason(own)).toMatch(/^Determinizing automaton/);
  const quoted = refusal({
    root_cause: [{ type: 'query_shard_exception', reason: 'failed to create query: input automaton is too large: 1001' }],
    type: 'search_phase_execution_exception',
  });
  expect(tooComplexReason(quoted)).toBe('failed to create query: input automaton is too large: 1001');
  const nested = refusal({ type: 'search_phase_execution_exception', caused_by: { type: 'too_many_clauses', reason: 'maxClauseCount is set to 1024' } });
  expect(tooComplexReason(nested)).toBe('maxClauseCount is set to 1024');
});

test('any other refusal is not the caller\'s: a mapping error, a 500, no body, a chain of more than eight causes', () => {
  expect(tooComplexReason(refusal({ root_cause: [{ type: 'query_shard_exception', reason: 'No mapping found for [nope] in order to sort on' }] }))).toBeNull();
  expect(tooComplexReason(refusal({ root_cause: [{ type: 'too_complex_to_determinize_exception' }] }, 500))).toBeNull();
  expect(tooComplexReason({ meta: { statusCode: 400 } })).toBeNull();
  expect(tooComplexReason(new Error('Determinizing automaton'))).toBeNull();
  let deep: Record<string, unknown> = { type: 'too_many_clauses' };
  for (let i = 0; i < 50; i++) deep = { type: 'wrapper', caused_by: deep };
  expect(tooComplexReason(refusal(deep))).toBeNull();
});
