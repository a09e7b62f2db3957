import { parse, type OperationDefinitionNode } from 'graphql';
import { BudgetedCache, CACHE_SHARES, CACHE_SHARE_TOTAL, HEAP_LIMIT_BYTES, cacheBudget, cacheStats } from '../../src/memory';
import { COMPILED_BYTES_PER_SELECTION, jitGateway } from '../../src/graphql/jit';
import { buildSchema } from '../../src/graphql/schema';
import { modules } from '../../src/modules';

describe('BudgetedCache', () => {
  test('holds at most its budget in estimated bytes, however many entries come', () => {
    const cache = new BudgetedCache<string, string>('phone_formats', { maxBytes: 100_000, sizeOf: (v) => v.length });
    for (let i = 0; i < 10_000; i++) cache.set(`k${i}`, 'x'.repeat(1000 + (i % 3000)));
    expect(cache.calculatedSize).toBeLessThanOrEqual(100_000);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.stats()).toMatchObject({ name: 'phone_formats', budget: 100_000, entries: cache.size, bytes: cache.calculatedSize });
  });

  test('keeps no entry over its largest entry size, and counts hits and misses', () => {
    const cache = new BudgetedCache<string, string>('phone_formats', { maxBytes: 160_000, sizeOf: (v) => v.length });
    expect(cache.maxEntryBytes).toBe(10_000);
    cache.set('big', 'x'.repeat(20_000));
    cache.set('small', 'x');
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('small')).toBe('x');
    expect(cache.fits(9_000)).toBe(true);
    expect(cache.fits(10_000)).toBe(false);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  test('the shares add up to less than half of the heap limit, and each budget is its share', () => {
    expect(CACHE_SHARE_TOTAL).toBeLessThanOrEqual(0.5);
    for (const [name, share] of Object.entries(CACHE_SHARES)) {
      expect(cacheBudget(name as keyof typeof CACHE_SHARES)).toBe(Math.floor(HEAP_LIMIT_BYTES * share));
    }
  });
});

describe('compiled documents', () => {
  const schema = buildSchema(modules);
  /** Runs `query` through the gateway's executor as Apollo would (its hash is the text: unique enough here). */
  async function run(gateway: ReturnType<typeof jitGateway>, query: string) {
    const { executor } = await gateway.load({ apollo: {} as any });
    const document = parse(query);
    const operation = document.definitions[0] as OperationDefinitionNode;
    return executor!({ document, operation, operationName: null, queryHash: query, request: { variables: {} }, context: {} } as any);
  }
  const compiled = () => cacheStats().find((c) => c.name === 'graphql_compiled')!;

  test('a document is compiled on its second run and counted at its estimated size', async () => {
    const gateway = jitGateway(schema, 1_000_000);
    await run(gateway, '{ __typename }');
    expect(compiled().bytes).toBeLessThan(COMPILED_BYTES_PER_SELECTION);
    expect(await run(gateway, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    expect(compiled().bytes).toBeGreaterThanOrEqual(COMPILED_BYTES_PER_SELECTION);
  });

  test('a document whose compiled form would pass a sixteenth of the budget runs uncompiled, with the same answer', async () => {
    const gateway = jitGateway(schema, 1_000_000);
    // 100 selections: about 200 KB compiled, over 62.5 KB.
    const query = `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    for (let i = 0; i < 3; i++) expect(((await run(gateway, query)) as any).data.a99).toBe('Query');
    // Its key and hit count only.
    expect(compiled().bytes).toBeLessThan(2 * query.length + 1_000);
  });

  test('distinct documents never hold more than the budget', async () => {
    const gateway = jitGateway(schema, 200_000);
    for (let n = 1; n <= 60; n++) {
      const query = `{ ${Array.from({ length: n % 6 + 1 }, (_, i) => `a${n}_${i}: __typename`).join(' ')} }`;
      await run(gateway, query);
      await run(gateway, query);
    }
    expect(compiled().bytes).toBeLessThanOrEqual(200_000);
    expect(compiled().entries).toBeLessThan(60);
  });
});
