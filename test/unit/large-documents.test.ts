import type { Request, Response } from 'express';
import { buildSchema, parse } from 'graphql';
import { parseConfig } from '../../src/config';
import { costPlugin, graphqlDocumentLimits, LARGE_DOCUMENT_CHARS } from '../../src/graphql/cost';

// A large document's admission hands the event loop back between its steps: a request already waiting
// (here, an immediate queued before the step starts) is served before the step goes on. A small
// document's admission runs through in one turn.

const limits = parseConfig({}).graphql;
const schema = buildSchema('type Lead { id: ID name: String } type Query { leads: [Lead] }');
/** A valid document of about `chars` characters. */
const documentOf = (chars: number) => `{ ${Array.from({ length: Math.ceil(chars / 24) }, (_, i) => `a${i}: leads { id name }`).join(' ')} }`;

/** The order in which `step` finished and an immediate queued just before it ran. */
async function order(step: (done: () => void) => void): Promise<string[]> {
  const seen: string[] = [];
  const other = new Promise<void>((resolve) => setImmediate(() => resolve(void seen.push('other caller'))));
  await new Promise<void>((resolve) => step(() => resolve(void seen.push('step'))));
  await other;
  return seen;
}

describe('the admission of a large GraphQL document', () => {
  const small = documentOf(200);
  const large = documentOf(LARGE_DOCUMENT_CHARS + 500);

  it('goes on after the text checks only on the next turn', async () => {
    const middleware = graphqlDocumentLimits(limits);
    const run = (query: string) => (done: () => void) => middleware({ method: 'POST', body: { query } } as Request, {} as Response, done);
    expect(large.length).toBeGreaterThan(LARGE_DOCUMENT_CHARS);
    expect(await order(run(large))).toEqual(['other caller', 'step']);
    expect(await order(run(small))).toEqual(['step', 'other caller']);
  });

  it('estimates its cost, and executes, each on a turn of its own', async () => {
    const hooks = await costPlugin({ ...limits, maxCost: 0 }).requestDidStart!({} as any);
    const resolve = (query: string) => (done: () => void) => {
      const context = { schema, document: parse(query), request: { query }, operationName: null } as any;
      hooks!.didResolveOperation!(context).then(done, done);
    };
    // Refused for its cost after the waiting request: the estimate ran on a later turn.
    expect(await order(resolve(large))).toEqual(['other caller', 'step']);
    expect(await order(resolve(small))).toEqual(['step', 'other caller']);

    const passes = await costPlugin(limits).requestDidStart!({} as any);
    let finished = false;
    const admitted = passes!.didResolveOperation!({ schema, document: parse(large), request: { query: large }, operationName: null } as any).then(() => (finished = true));
    // The estimate's turn, then one more before execution starts.
    await new Promise(setImmediate);
    expect(finished).toBe(false);
    await admitted;
  });
});
