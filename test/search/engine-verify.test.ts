// `leadnet search verify` (docs/search-engines.md, "Verify and repair"): the index compared with
// PostgreSQL finds injected drift (a document deleted from the index, one modified, a stray one added),
// tells a change still queued in the outbox from drift, and `--repair` rewrites what drifted; as a
// process it prints JSON with --json and exits 1 on drift.
import { randomBytes, randomUUID } from 'node:crypto';
import { api, createTestApp, type TestApp } from '../support/app';
import { runLeadnet } from '../support/cli';
import { roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { verify } from '../../src/search/elasticsearch/verify';
import { searchDocuments } from '../../src/modules';
import { productSearch } from '../../src/modules/product/product.search';

const engine = engineUnderTest();

(engine ? describe : describe.skip)('leadnet search verify', () => {
  const prefix = `leadnet_verify_${randomBytes(4).toString('hex')}_`;
  let t: TestApp;
  let backend: ElasticsearchSearchBackend;
  let key: string;
  let ids: string[];
  let index: string;
  const cli = (...args: string[]) =>
    runLeadnet(args, { DATABASE_URL: t.config.databaseUrl, SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix });

  beforeAll(async () => {
    // No background indexer: a change queued in the outbox stays there until the test drains it.
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' });
    backend = createElasticsearchBackend(t.config, t.orm, { documents: searchDocuments, runIndexer: false });
    key = (await roles(t.em())).users.companyAdmin.key;
    ids = [];
    for (let i = 1; i <= 6; i++) {
      const res = await api(t, 'post', '/v1/products', { key, body: { product: { sku: `VER-${i}`, name: `Verified anvil ${i}` } } });
      ids.push(res.body.id);
    }
    [index] = Object.keys(await backend.client.indices.getAlias({ name: backend.alias(productSearch) }));
  });
  afterAll(async () => {
    await backend?.stop();
    if (t) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
  });

  test('in step: no drift, every document counted', async () => {
    const report = await verify(backend, productSearch);
    expect(report).toMatchObject({ ok: true, database: 6, indexed: 6, missing: 0, extra: 0, stale: 0, index });
  });

  const stray = randomUUID();
  test('injected drift is found: a document deleted, one modified, a stray one added', async () => {
    const [doc] = (await backend.client.search({ index, query: { ids: { values: [ids[1]] } } })).hits.hits;
    await backend.client.bulk({
      refresh: true,
      operations: [
        { delete: { _index: index, _id: ids[0] } },
        { index: { _index: index, _id: ids[1] } },
        { ...(doc._source as object), name: 'Tampered' },
        { index: { _index: index, _id: stray } },
        { ...(doc._source as object), leadnet_id: stray },
      ],
    });
    const report = await verify(backend, productSearch);
    expect(report).toMatchObject({
      ok: false,
      database: 6,
      indexed: 6,
      missing: 1,
      stale: 1,
      extra: 1,
      ids: { missing: [ids[0]], stale: [ids[1]], extra: [stray] },
    });
  });

  test('a change still queued in the outbox is pending, not drift', async () => {
    await t.em().getConnection().execute(`update products set name = 'Renamed, not yet indexed' where id = ?`, [ids[2]]);
    const report = await verify(backend, productSearch);
    expect(report.pending).toBe(1);
    expect(report.ids.stale).toEqual([ids[1]]);
  });

  test('as a process: --json report, exit status 1 on drift', async () => {
    const out = await cli('search', 'verify', 'products', '--json');
    expect(out.code).toBe(1);
    const body = JSON.parse(out.stdout);
    expect(body.ok).toBe(false);
    expect(body.documents[0]).toMatchObject({ document: 'products', missing: 1, stale: 1, extra: 1, pending: 1 });
    expect(JSON.parse(out.stderr).error).toMatchObject({ code: 'SEARCH_DRIFT' });
  }, 150_000);

  test('--repair rewrites the drifted documents; then every resource verifies clean (exit 0)', async () => {
    const repaired = await cli('search', 'verify', 'products', '--repair', '--json');
    expect(JSON.parse(repaired.stdout).documents[0]).toMatchObject({ ok: true, repaired: 3, missing: 0, stale: 0, extra: 0 });
    expect(repaired.code).toBe(0);
    await backend.indexer.drain();
    const all = await cli('search', 'verify');
    expect(all).toMatchObject({ code: 0, stdout: expect.stringMatching(/^products\s+ok\s+database 6, index 6/m) });
    expect((await api(t, 'get', '/v1/products?q=tampered', { key })).body.products).toEqual([]);
  }, 150_000);

  test('a batch size past 10,000 is a usage error, before anything is read', async () => {
    for (const size of ['0', '10001', '1e9']) {
      const out = await cli('search', 'verify', 'products', '--batch-size', size);
      expect(out).toMatchObject({ code: 1, stdout: '', stderr: 'leadnet: --batch-size must be an integer from 1 to 10000\n' });
    }
    expect(await cli('search', 'verify', 'products', '--batch-size', '10000')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^products\s+ok/m) });
  }, 60_000);
});
