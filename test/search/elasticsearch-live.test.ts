// Keeping a live engine in step (test/support/search-engine.ts: SEARCH_CLUSTER=1, or SEARCH_URL): the
// app's start creates the index behind its alias, the indexer fills it, and the zero-downtime reindex
// moves the alias to a new index, deletes the old one, and the REST list answers the same before and after;
// so does `leadnet reindex` run as a process.
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from '../support/app';
import { listedSkus } from '../support/engine-checks';
import { runLeadnet } from '../support/cli';
import * as f from '../support/factories';
import { engineUnderTest } from '../support/search-engine';
import { Role } from '../../src/modules/user/role';
import { productSearch } from '../../src/modules/product/product.search';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { reindex } from '../../src/search/elasticsearch/reindex';
import { searchDocuments } from '../../src/modules';
import { indexDefinition } from '../../src/search/elasticsearch/mapping';
import { buildDocuments } from '../../src/search/elasticsearch/documents.queries';
import type { SearchDocument } from '../../src/search/types';

const engine = engineUnderTest();
const run = engine ? describe : describe.skip;

run(`a live ${engine?.backend ?? 'search engine'}: index, indexer and reindex`, () => {
  const prefix = `leadnet_live_${randomBytes(4).toString('hex')}_`;
  let t: TestApp;
  let backend: ElasticsearchSearchBackend;
  let key: string;

  const client = () => searchEngineClient(t.config);
  const aliased = async () => Object.keys(await client().indices.getAlias({ name: `${prefix}products` }));
  const listed = (q: string) => listedSkus(t, key, q);

  beforeAll(async () => {
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' });
    backend = createElasticsearchBackend(t.config, t.orm, { documents: searchDocuments, runIndexer: false });
    const acme = await f.company(t.em(), 'Acme');
    key = (await f.userWithKey(t.em(), Role.CompanyAdmin, acme)).key;
    for (let i = 1; i <= 7; i++) await f.product(t.em(), acme, { sku: `LIVE-${i}`, name: i % 2 ? `Anvil ${i}` : `Hammer ${i}` });
  });
  afterAll(async () => {
    await backend?.stop();
    if (t) await client().indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
  });

  test('start creates the index behind its alias, with a replica, and the indexer fills it', async () => {
    await backend.start();
    const [index] = await aliased();
    expect(index).toMatch(new RegExp(`^${prefix}products_`));
    await backend.indexer.drain();
    await backend.refresh();
    expect(await listed('anvil')).toEqual(['LIVE-1', 'LIVE-3', 'LIVE-5', 'LIVE-7']);
    const settings: any = await fetch(`${engine!.url}/${index}/_settings`).then((r) => r.json());
    expect(settings[index].settings.index).toMatchObject({ number_of_shards: '1', number_of_replicas: '1' });
  });

  test('reindex: a new index behind the alias, the old one deleted, the same answers', async () => {
    const [before] = await aliased();
    let building: any;
    const result = await reindex(backend, t.orm, productSearch, {
      batchSize: 3,
      onProgress: async () => {
        const [{ index_name: name }] = await t.em().getConnection().execute(`select index_name from search_indexes where state = 'building'`);
        building ??= ((await fetch(`${engine!.url}/${name}/_settings`).then((r) => r.json())) as any)[name].settings.index;
      },
    });
    expect(result).toMatchObject({ documents: 7, previous: [before] });
    // Built with no replica and no refresh; swapped in with its replica copied and started (green).
    expect(building).toMatchObject({ number_of_replicas: '0', refresh_interval: '-1' });
    // The cluster's balancer may already be moving a copy to another node (RELOCATING: still started).
    // A copy that has just started or moved can list no document count until its node's stats catch
    // up (Elasticsearch prints null), so the copies are read again until each one reports a count.
    let active: any[] = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const shards = (await fetch(`${engine!.url}/_cat/shards/${result.index}?format=json`).then((r) => r.json())) as any[];
      active = shards.filter((s) => s.state === 'STARTED' || s.state === 'RELOCATING');
      if (active.every((s) => s.docs != null)) break;
    }
    expect(active.map((s) => `${s.prirep} ${s.docs}`).sort()).toEqual(['p 7', 'r 7']);
    expect(new Set(active.map((s) => String(s.node).split(' ')[0])).size).toBe(2);
    expect(await client().cluster.health({ index: result.index })).toMatchObject({ status: 'green' });
    expect(await aliased()).toEqual([result.index]);
    expect(await client().indices.exists({ index: before })).toBe(false);
    expect(await listed('anvil')).toEqual(['LIVE-1', 'LIVE-3', 'LIVE-5', 'LIVE-7']);
    expect(await listed('hamer')).toEqual(['LIVE-2', 'LIVE-4', 'LIVE-6']);
    // The new index reads its refresh interval from the default again (reindex turned it off, then back).
    const settings: any = await fetch(`${engine!.url}/${result.index}/_settings`).then((r) => r.json());
    expect(settings[result.index].settings.index.refresh_interval).toBeUndefined();
    expect(settings[result.index].settings.index.number_of_replicas).toBe('1');
  });

  test('a new index whose replicas cannot all be assigned is deleted before the swap; the old one stays live', async () => {
    const [before] = await aliased();
    // Three replicas on three nodes: one copy stays unassigned, the index never turns green.
    const definition = indexDefinition(productSearch);
    const tooMany: SearchDocument = {
      ...productSearch,
      customIndex: {
        definition: () => ({ mappings: definition.mappings as Record<string, unknown>, settings: { ...definition.settings, number_of_replicas: 3 } }),
        build: (execute, ids) => buildDocuments(execute, productSearch, ids),
      },
    };
    await expect(reindex(backend, t.orm, tooMany, { readyTimeoutMs: 3000 })).rejects.toThrow(
      new RegExp(`^reindex: the new index ${prefix}products_\\S+ was not green \\(its replicas assigned and copied\\) within 3000 ms, last yellow; it was deleted`),
    );
    expect(await aliased()).toEqual([before]);
    const indices = (await fetch(`${engine!.url}/_cat/indices/${prefix}products_*?format=json`).then((r) => r.json())) as any[];
    expect(indices.map((i) => i.index)).toEqual([before]);
    expect(await t.em().getConnection().execute(`select index_name, state from search_indexes where document = 'products'`)).toEqual([{ index_name: before, state: 'live' }]);
    expect(await listed('anvil')).toEqual(['LIVE-1', 'LIVE-3', 'LIVE-5', 'LIVE-7']);
  });

  test('`leadnet reindex products` as a process, configured by SEARCH_BACKEND and SEARCH_URL', async () => {
    const [before] = await aliased();
    const env = { DATABASE_URL: t.config.databaseUrl, SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix };
    const out = await runLeadnet(['reindex', 'products'], env);
    expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^${prefix}products_\\S+: 7 documents \\(replaced ${before}\\)`)) });
    expect(await aliased()).not.toEqual([before]);
    expect(await listed('anvil')).toEqual(['LIVE-1', 'LIVE-3', 'LIVE-5', 'LIVE-7']);
  }, 150_000);
});
