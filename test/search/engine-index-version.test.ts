// A mapping change ships as a new index version (docs/search-engines.md, "Index versions and reindex"):
// an index records the version of the definition it was created with; a process running the indexer
// with another definition rebuilds it with the zero-downtime reindex (new index, fill, alias swap)
// while writes continue and lists keep answering; afterwards the index equals the database.
import { randomBytes } from 'node:crypto';
import { api, createTestApp, type TestApp } from '../support/app';
import { listedSkus } from '../support/engine-checks';
import { roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { definitionVersion } from '../../src/search/elasticsearch/mapping';
import { reindex } from '../../src/search/elasticsearch/reindex';
import { verify } from '../../src/search/elasticsearch/verify';
import { productSearch } from '../../src/modules/product/product.search';
import type { SearchDocument } from '../../src/search/types';

const engine = engineUnderTest();

(engine ? describe : describe.skip)('index versions', () => {
  const prefix = `leadnet_version_${randomBytes(4).toString('hex')}_`;
  let t: TestApp;
  let key: string;
  const backends: ElasticsearchSearchBackend[] = [];
  // The previous release's products document: no `url` field, so another mapping.
  const { url: _url, ...previousFields } = productSearch.fields;
  const previous: SearchDocument = { ...productSearch, fields: previousFields };
  const backend = (doc: SearchDocument, runIndexer: boolean) => {
    const b = createElasticsearchBackend(t.config, t.orm, { documents: [doc], runIndexer, indexer: { intervalMs: 50 } });
    backends.push(b);
    return b;
  };
  const skus = () => listedSkus(t, key, 'versioned');

  beforeAll(async () => {
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' });
    const r = await roles(t.em());
    key = r.users.companyAdmin.key;
    await t.em().getConnection().execute(
      `insert into products (company_id, sku, name) select ?::uuid, 'V-' || g, 'Versioned anvil ' || g from generate_series(1, 20) g`,
      [r.net.company.id],
    );
    await backend(productSearch, false).indexer.drain();
  }, 120_000);
  afterAll(async () => {
    for (const b of backends) await b.stop();
    if (t) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
  });

  test('an index records its definition version; another definition has another', async () => {
    const current = backend(productSearch, false);
    expect(await current.liveVersion(productSearch)).toBe(definitionVersion(productSearch));
    expect(definitionVersion(previous)).not.toBe(definitionVersion(productSearch));
  });

  test('the indexer process upgrades an outdated index with no downtime, writes going on', async () => {
    // The live index as the previous release built it.
    const old = backend(previous, false);
    const built = await reindex(old, t.orm, previous);
    expect(await old.liveVersion(previous)).toBe(definitionVersion(previous));
    const before = await skus();
    expect(before).toHaveLength(20);

    const upgrader = backend(productSearch, true);
    await upgrader.start();
    // Writes and lists while the new version is built and swapped in: every list answers and holds at
    // least what was there before. (The old index's strict mapping refuses documents of the new shape:
    // those writes reach the new index, and the lists once it is swapped in.)
    let n = 0;
    let done = false;
    const upgraded = upgrader.upgrading.finally(() => (done = true));
    while (!done || n < 5) {
      await api(t, 'post', '/v1/products', { key, body: { product: { sku: `W-${++n}`, name: `Versioned write ${n}` } } });
      const listed = await skus();
      expect(listed).toEqual(expect.arrayContaining(before));
    }
    expect(await upgraded).toEqual(['products']);
    expect(await upgrader.liveVersion(productSearch)).toBe(definitionVersion(productSearch));
    const [live] = Object.keys(await upgrader.client.indices.getAlias({ name: upgrader.alias(productSearch) }));
    expect(live).not.toBe(built.index);
    expect(await upgrader.client.indices.exists({ index: built.index })).toBe(false);
    const mapping = await upgrader.client.indices.getMapping({ index: live });
    expect(mapping[live].mappings.properties).toHaveProperty('url');

    await t.em().getConnection().execute('update search_outbox set available_at = now()');
    await upgrader.indexer.drain();
    expect(await verify(upgrader, productSearch)).toMatchObject({ ok: true, database: 20 + n });
    expect(await skus()).toHaveLength(20 + n);
  }, 180_000);
});
