import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { tracedEngineClient, type EngineClient } from '../../src/search/elasticsearch/client';
import { inSpan, setTracingOn } from '../../src/tracing';

/** Engine calls in traces (docs/tracing.md): a child span per call of a traced request, none outside one, never the query. */
const exporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  setTracingOn(true);
});
afterAll(() => setTracingOn(false));

const calls: string[] = [];
const stub = {
  search: async (request: unknown) => (calls.push(`search ${JSON.stringify(request)}`), { hits: { hits: [] } }),
  bulk: async () => ({ errors: false, items: [] }),
  indices: {
    refresh: async () => ({}),
    create: async () => ({}),
    exists: async () => true,
    getMapping: async () => ({}),
    existsAlias: async () => true,
    getAlias: async () => ({}),
    updateAliases: async () => ({}),
    putSettings: async () => ({}),
    delete: async () => ({}),
    flush: async () => ({}),
  },
  cluster: { health: async () => ({ status: 'green' }) },
} as unknown as EngineClient;

test('inside a traced request: one client span per call, with the engine, operation and index; never the query', async () => {
  const client = tracedEngineClient(stub, 'opensearch');
  await inSpan('request', {}, async () => {
    await client.search({ index: 'leadnet_leads', query: { match: { name: 'Secret Person' } } } as never);
    await client.indices.refresh({ index: 'leadnet_leads' });
  });
  const spans = exporter.getFinishedSpans();
  const parent = spans.find((s) => s.name === 'request')!;
  const search = spans.find((s) => s.name === 'search')!;
  expect(search.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  expect(search.attributes).toEqual({ 'db.system.name': 'opensearch', 'db.operation.name': 'search', 'db.collection.name': 'leadnet_leads' });
  expect(spans.find((s) => s.name === 'indices.refresh')?.attributes['db.collection.name']).toBe('leadnet_leads');
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('Secret');
  expect(calls).toHaveLength(1);
});

test('outside a traced request (the indexer polling): the call is made, no span', async () => {
  exporter.reset();
  await tracedEngineClient(stub, 'elasticsearch').cluster.health({ index: 'x' });
  expect(exporter.getFinishedSpans()).toEqual([]);
});
