// What the engine suites check after a failure: the index equal to the database, and the writes a
// partner's server made meanwhile.
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { verify } from '../../src/search/elasticsearch/verify';
import { api, type TestApp } from './app';

/**
 * Every document's index equals the database: the outbox is drained by `backend` (its backoffs brought
 * forward), then `verify` finds no drift in any document.
 */
export async function expectIndexInStep(backend: ElasticsearchSearchBackend, sql: (statement: string) => Promise<any[]>): Promise<void> {
  await sql('update search_outbox set available_at = now()');
  await backend.indexer.drain();
  const [{ left }] = await sql('select count(*)::int as left from search_outbox');
  expect(left).toBe(0);
  for (const doc of backend.documents) {
    const report = await verify(backend, doc);
    expect({ document: doc.name, ok: report.ok, missing: report.missing, extra: report.extra, stale: report.stale }).toEqual({
      document: doc.name,
      ok: true,
      missing: 0,
      extra: 0,
      stale: 0,
    });
  }
}

/** The SKUs of the products a REST list with this `q` answers to the caller (up to 500), sorted. */
export async function listedSkus(t: TestApp, key: string, q: string): Promise<string[]> {
  const res = await api(t, 'get', `/v1/products?q=${encodeURIComponent(q)}&opts[per_page]=500`, { key });
  expect(res.status).toBe(200);
  return res.body.products.map((p: { sku: string }) => p.sku).sort();
}

/**
 * A partner's server writing products over REST: each `write()` creates one, renames every third and
 * deletes every fifth; `statuses` keeps every answer's status, `count()` the products created.
 */
export function productWriter(t: TestApp, key: string, label: string) {
  const statuses: number[] = [];
  let n = 0;
  const write = async () => {
    const sku = `${label.toUpperCase()}-${++n}`;
    const res = await api(t, 'post', '/v1/products', { key, body: { product: { sku, name: `${label} anvil ${n}` } } });
    statuses.push(res.status);
    if (n % 3 === 0) statuses.push((await api(t, 'patch', `/v1/products/${res.body.id}`, { key, body: { product: { name: `${label} anvil ${n} renamed` } } })).status);
    if (n % 5 === 0) statuses.push((await api(t, 'delete', `/v1/products/${res.body.id}`, { key })).status);
  };
  return { key, write, statuses, count: () => n };
}
