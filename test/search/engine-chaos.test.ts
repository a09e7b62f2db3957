import { searchDocuments } from '../../src/modules';
// The outbox feeds the engine without loss (docs/search-engines.md, "Failures and recovery"): the
// standalone indexer killed (SIGKILL) in the middle of a batch, and the engine cut off from a running
// service for a while under a stream of writes; after recovery `verify` finds the index equal to the
// database. (One node of three stopped, and the whole cluster restarted from its data: engine-cluster-failures.)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { api, createTestApp, type TestApp } from '../support/app';
import { LEADNET_BIN, leadnetEnv } from '../support/cli';
import { roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { expectIndexInStep, productWriter } from '../support/engine-checks';
import { tcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { SEARCH_LOCK } from '../../src/search/elasticsearch/outbox.queries';
import { reindex } from '../../src/search/elasticsearch/reindex';

const engine = engineUnderTest();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(engine ? describe : describe.skip)('the outbox under failures', () => {
  const prefix = `leadnet_chaos_${randomBytes(4).toString('hex')}_`;
  let t: TestApp;
  let proxy: TcpProxy;
  let backend: ElasticsearchSearchBackend;
  let key: string;
  let companyId: string;
  const sql = (statement: string, bindings: unknown[] = []) => t.em().getConnection().execute(statement, bindings as any[]);
  /** The environment of the indexer and `leadnet` processes this suite starts. */
  const env = () => leadnetEnv({ DATABASE_URL: t.config.databaseUrl, SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix });

  const expectInStep = () => expectIndexInStep(backend, sql);

  beforeAll(async () => {
    // The service reaches the engine through a proxy the test can cut; the test's own backend (drain,
    // verify) and the standalone indexer reach it directly.
    proxy = await tcpProxy(engine!.url);
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: proxy.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' });
    backend = createElasticsearchBackend({ ...t.config, searchUrl: engine!.url }, t.orm, { documents: searchDocuments, runIndexer: false });
    const r = await roles(t.em());
    key = r.users.companyAdmin.key;
    companyId = r.net.company.id;
    await backend.indexer.drain();
  });
  afterAll(async () => {
    await backend?.stop();
    if (t) await searchEngineClient({ ...t.config, searchUrl: engine!.url }).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
    await proxy?.close();
  });

  test('the standalone indexer killed in the middle of a batch: nothing is lost', async () => {
    const total = 3000;
    await sql(
      `insert into products (company_id, sku, name) select ?::uuid, 'CHAOS-' || g, 'Chaos anvil ' || g from generate_series(1, ?) g`,
      [companyId, total],
    );
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', '..', 'src', 'search-indexer.ts')], {
      env: env(),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Mid-batch: some rows already done, and a batch holding the outbox lock right now.
    let killedMidBatch = false;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && child.exitCode === null) {
      const [{ left, locked }] = await sql(
        `select (select count(*)::int from search_outbox) as left,
                exists(select 1 from pg_locks where locktype = 'advisory' and objid = ? and granted) as locked`,
        [SEARCH_LOCK],
      );
      if (left === 0) break;
      if (left < total && locked) {
        child.kill('SIGKILL');
        killedMidBatch = true;
        break;
      }
      await sleep(5);
    }
    if (!killedMidBatch) child.kill('SIGKILL');
    await exited;
    expect(killedMidBatch).toBe(true);
    const [{ left }] = await sql('select count(*)::int as left from search_outbox');
    expect(left).toBeGreaterThan(0);
    await expectInStep();
    expect((await api(t, 'get', '/v1/products?q=chaos&opts[per_page]=1', { key })).body.meta.total).toBe(total);
  }, 240_000);

  test('leadnet reindex: one at a time across processes; killed mid-fill, its index is removed, not fed for ever', async () => {
    const products = backend.document('products')!;
    const building = async () => (await sql(`select index_name from search_indexes where document = 'products' and state = 'building'`)).map((r) => r.index_name as string);
    const child = spawn(process.execPath, [LEADNET_BIN, 'reindex', 'products', '--batch-size', '1'], {
      env: env(),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && child.exitCode === null && !(await building()).length) await sleep(20);
    const [orphan] = await building();
    expect(orphan).toBeDefined();
    // A second reindex while the first fills (the indexer's start, or an operator) is refused, not run beside it.
    await expect(reindex(backend, t.orm, products)).rejects.toMatchObject({ name: 'ReindexRunning' });
    child.kill('SIGKILL');
    await exited;
    const client = searchEngineClient({ ...t.config, searchUrl: engine!.url });
    expect(await building()).toEqual([orphan]);
    expect(await client.indices.exists({ index: orphan })).toBe(true);

    // Writes meanwhile reach the live index (and the orphan); the indexer's start removes the orphan.
    expect((await api(t, 'post', '/v1/products', { key, body: { product: { sku: 'AFTER-KILL', name: 'After the kill' } } })).status).toBe(201);
    expect(await backend.upgradeOutdated()).toEqual([]);
    expect(await building()).toEqual([]);
    expect(await client.indices.exists({ index: orphan })).toBe(false);
    await expectInStep();
    // And a reindex runs again, to the end.
    const result = await reindex(backend, t.orm, products);
    expect(result.previous).not.toContain(orphan);
    expect(await sql(`select index_name, state from search_indexes where document = 'products'`)).toEqual([{ index_name: result.index, state: 'live' }]);
    await expectInStep();
  }, 240_000);

  test('a reindex that died between its alias swap and the commit recording it: the swap stands', async () => {
    const products = backend.document('products')!;
    const [old] = (await sql(`select index_name from search_indexes where document = 'products' and state = 'live'`)).map((r) => r.index_name as string);
    // What the reindex had done: its index created, registered as building, filled, the alias moved to it.
    const index = await backend.createIndex(products);
    await sql(`insert into search_indexes (index_name, document, state) values (?, 'products', 'building')`, [index]);
    const ids = (await sql('select id from products')).map((r) => r.id as string);
    for (let i = 0; i < ids.length; i += 1000) await backend.index(products, ids.slice(i, i + 1000));
    await backend.swapAlias(products, index);

    expect(await backend.upgradeOutdated()).toEqual([]);
    expect(await sql(`select index_name, state from search_indexes where document = 'products'`)).toEqual([{ index_name: index, state: 'live' }]);
    const client = searchEngineClient({ ...t.config, searchUrl: engine!.url });
    expect(await client.indices.exists({ index: old })).toBe(false);
    expect(Object.keys(await client.indices.getAlias({ name: backend.alias(products) }))).toEqual([index]);
    expect((await api(t, 'post', '/v1/products', { key, body: { product: { sku: 'AFTER-SWAP', name: 'After the swap' } } })).status).toBe(201);
    await expectInStep();
  }, 120_000);

  test('the engine cut off from the service under writes, then back: the index equals the database', async () => {
    const { write, statuses, count } = productWriter(t, key, 'Cut');
    for (let i = 0; i < 10; i++) await write();
    proxy.cut();
    const cutUntil = Date.now() + 8_000;
    while (Date.now() < cutUntil) await write();
    expect((await api(t, 'get', '/v1/products', { key })).status).toBe(503);
    proxy.restore();
    for (let i = 0; i < 10; i++) await write();
    // Every write was acknowledged, during the cut too.
    expect(statuses.filter((s) => s >= 300)).toEqual([]);
    expect(count()).toBeGreaterThan(20);
    await expectInStep();
  }, 240_000);
});
