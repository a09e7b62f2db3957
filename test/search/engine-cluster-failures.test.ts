// The outbox feeds the engine without loss when the cluster itself fails (docs/search-engines.md,
// "Failures and recovery"): one node of three stopped while a service indexes a stream of writes, then
// started again; the whole cluster stopped for a minute under writes, then started again from its data;
// and the whole cluster killed outright (SIGKILL) in the middle of writes, then started again from what
// it left on disk. Every write is acknowledged throughout, and once the cluster is back the index equals
// the database. Runs with the engine suites (SEARCH_CLUSTER=opensearch or elasticsearch): it starts
// clusters of its own, on the launcher of that engine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { api, createTestApp, type TestApp } from '../support/app';
import { roles } from '../support/leads';
import { clusterEngine, startSearchCluster, type SearchCluster } from '../support/search-cluster';
import { expectIndexInStep, productWriter } from '../support/engine-checks';
import { searchDocuments } from '../../src/modules';
import { createElasticsearchBackend } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';

const engine = clusterEngine();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(engine ? describe : describe.skip)(`a ${engine ?? 'search'} cluster failing under writes`, () => {
  const prefix = `leadnet_nodes_${randomBytes(4).toString('hex')}_`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-cluster-failures-'));
  let cluster: SearchCluster;
  let t: TestApp;
  let backend: ElasticsearchSearchBackend;
  const sql = (statement: string) => t.em().getConnection().execute(statement);
  const http = async (method: string, route: string, body?: unknown) =>
    (await fetch(`${cluster.url}/${route}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;

  let writer: ReturnType<typeof productWriter>;
  const write = () => writer.write();
  /** Writes in the background until the returned function is called (which resolves once the last write ended). */
  const keepWriting = () => {
    let on = true;
    const loop = (async () => {
      while (on) await write();
    })();
    return async () => {
      on = false;
      await loop;
    };
  };
  const productsListed = async () => (await api(t, 'get', '/v1/products', { key: writer.key })).status;
  /** The cluster started again on its ports from its data: writes go on, and the index equals the database. */
  const restartedInStep = async () => {
    cluster = await startSearchCluster(engine!, { port: cluster.port, dataDir });
    for (let i = 0; i < 10; i++) await write();
    expect(writer.statuses.filter((s) => s >= 300)).toEqual([]);
    await expectIndexInStep(backend, sql);
    expect(await productsListed()).toBe(200);
  };

  beforeAll(async () => {
    cluster = await startSearchCluster(engine!, { dataDir });
    // An operator's template trading durability for indexing speed (the engines' "tune for indexing
    // speed" advice): the service's indexes keep acknowledging only what is on disk all the same.
    await http('PUT', `_index_template/${prefix}async`, {
      index_patterns: [`${prefix}*`],
      template: { settings: { index: { translog: { durability: 'async', sync_interval: '120s' } } } },
    });
    t = await createTestApp({ SEARCH_BACKEND: engine!, SEARCH_URL: cluster.url, ELASTICSEARCH_INDEX_PREFIX: prefix });
    backend = createElasticsearchBackend(t.config, t.orm, { documents: searchDocuments, runIndexer: false });
    writer = productWriter(t, (await roles(t.em())).users.companyAdmin.key, 'Node');
    await backend.indexer.drain();
  }, 600_000);
  afterAll(async () => {
    await backend?.stop();
    await t?.close();
    await cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("the node holding the products' primary stopped while writes are indexed, then started again", async () => {
    // The service talks to node-1: the test's shards live on the two others, so the one stopped holds a
    // primary and is not the service's way in.
    await http('PUT', `${prefix}*/_settings`, { 'index.routing.allocation.exclude._name': 'node-1' });
    expect(await http('GET', `_cluster/health/${prefix}*?wait_for_status=green&wait_for_no_relocating_shards=true&timeout=120s`)).toMatchObject({ status: 'green' });
    const shards: Array<{ index: string; prirep: string; node: string }> = await http('GET', `_cat/shards/${prefix}products*?format=json`);
    const primary = shards.find((s) => s.prirep === 'p')!.node;
    expect(primary).toMatch(/^node-[23]$/);

    for (let i = 0; i < 10; i++) await write();
    const stopWriting = keepWriting();
    await sleep(1_000);
    expect(await cluster.command(`stop ${primary}`)).toBe(`${primary} stopped`);
    const atStop = writer.count();
    // The replica on the other node is promoted: lists answer again within seconds, writes never stopped.
    let listed = 0;
    for (let i = 0; i < 60 && (listed = await productsListed()) !== 200; i++) await sleep(500);
    expect(listed).toBe(200);
    await sleep(3_000);
    expect(await cluster.command(`start ${primary}`)).toBe(`${primary} started`);
    // Writes went on while the node was away (each waits for its changes to be searchable).
    expect(writer.count()).toBeGreaterThan(atStop);
    expect(await http('GET', `_cluster/health?wait_for_status=green&wait_for_nodes=3&timeout=120s`)).toMatchObject({ status: 'green', number_of_nodes: 3 });
    await sleep(1_000);
    await stopWriting();

    expect(writer.statuses.filter((s) => s >= 300)).toEqual([]);
    await expectIndexInStep(backend, sql);
  }, 300_000);

  test('the whole cluster stopped for a minute under writes, then started again from its data', async () => {
    for (let i = 0; i < 10; i++) await write();
    await cluster.stop();
    const written = writer.count();
    const downUntil = Date.now() + 60_000;
    while (Date.now() < downUntil) await write();
    const down = await api(t, 'get', '/v1/products', { key: writer.key });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBeDefined();
    expect(writer.count() - written).toBeGreaterThan(10);

    await restartedInStep();
  }, 400_000);

  test('the whole cluster killed outright (SIGKILL) in the middle of writes, then started again from its data', async () => {
    const settings: Record<string, any> = await http('GET', `${prefix}*/_settings/index.translog.durability`);
    expect(Object.values(settings).map((index) => index.settings.index.translog.durability)).toEqual(Object.keys(settings).map(() => 'request'));
    expect(Object.keys(settings).length).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) await write();
    // Killed while writes go on, so requests of the outbox's batches are cut half-way; nothing is flushed
    // or closed first. Every change the engine acknowledged before must be found after the restart.
    const stopWriting = keepWriting();
    await sleep(2_000);
    await cluster.kill();
    const atKill = writer.count();
    await sleep(10_000);
    await stopWriting();
    expect(writer.count()).toBeGreaterThan(atKill);
    expect((await api(t, 'get', '/v1/products', { key: writer.key })).status).toBe(503);

    await restartedInStep();
  }, 400_000);
});
