// A document the engine refuses (docs/search-engines.md, "Failures and recovery"): the
// outbox retries that one, with the engine's reason, and the rest of its batch is indexed and listed.
// On the live cluster (SEARCH_CLUSTER=1), with an index whose mapping refuses some documents: an earlier
// definition typed `category` as a number, so a product whose category is not one is refused.
import { randomBytes } from 'node:crypto';
import { createTestApp, type TestApp } from '../support/app';
import { listedSkus } from '../support/engine-checks';
import { roles } from '../support/leads';
import { engineUnderTest } from '../support/search-engine';
import { createElasticsearchBackend, searchEngineClient } from '../../src/search/factory';
import type { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { reindex } from '../../src/search/elasticsearch/reindex';
import { verify } from '../../src/search/elasticsearch/verify';
import { productSearch } from '../../src/modules/product/product.search';
import type { SearchDocument } from '../../src/search/types';

const engine = engineUnderTest();

(engine ? describe : describe.skip)('documents the engine refuses', () => {
  const prefix = `leadnet_refusals_${randomBytes(4).toString('hex')}_`;
  const numericCategory: SearchDocument = { ...productSearch, fields: { ...productSearch.fields, category: { sql: 'p.category', type: 'number' } } };
  let t: TestApp;
  let key: string;
  let companyId: string;
  const backends: ElasticsearchSearchBackend[] = [];
  const backend = (doc: SearchDocument) => {
    const b = createElasticsearchBackend(t.config, t.orm, { documents: [doc], runIndexer: false });
    backends.push(b);
    return b;
  };
  const sql = (query: string, params: unknown[] = []) => t.em().getConnection().execute(query, params as any[]);
  const listed = () => listedSkus(t, key, 'refusal');

  beforeAll(async () => {
    t = await createTestApp({ SEARCH_BACKEND: engine!.backend, SEARCH_URL: engine!.url, ELASTICSEARCH_INDEX_PREFIX: prefix, SEARCH_INDEXER: 'false' });
    const r = await roles(t.em());
    key = r.users.companyAdmin.key;
    companyId = r.net.company.id;
    await reindex(backend(numericCategory), t.orm, numericCategory);
    // The other documents the roles' seed queued are not under test.
    await sql('delete from search_outbox');
  }, 120_000);
  afterAll(async () => {
    for (const b of backends) await b.stop();
    if (t) await searchEngineClient(t.config).indices.delete({ index: `${prefix}*`, ignore_unavailable: true });
    await t?.close();
  });

  test('one batch: the accepted documents are listed, the refused one waits in the outbox with its reason', async () => {
    // One transaction, as an import writes: one batch holds all five.
    await sql(
      `insert into products (company_id, sku, name, category)
         select ?::uuid, 'R-' || g, 'Refusal anvil ' || g, case when g = 3 then 'Anvils' else g::text end from generate_series(1, 5) g`,
      [companyId],
    );
    const current = backend(productSearch);
    expect(await current.indexer.runBatch()).toMatchObject({ claimed: 5, indexed: 4, failed: 1 });
    await current.searchable([productSearch], true);
    expect(await listed()).toEqual(['R-1', 'R-2', 'R-4', 'R-5']);

    const rows = await sql(
      `select p.sku, o.attempts, o.last_error, o.available_at > now() as later from search_outbox o join products p on p.id = o.record_id`,
    );
    expect(rows).toEqual([{ sku: 'R-3', attempts: 1, later: true, last_error: expect.stringMatching(/^400 (mapper_parsing_exception|document_parsing_exception): .*category/) }]);
    // The refused document is retried alone, and refused again until the index changes.
    await sql('update search_outbox set available_at = now()');
    expect(await current.indexer.runBatch()).toMatchObject({ claimed: 1, indexed: 0, failed: 1 });
    expect(await sql('select attempts from search_outbox')).toEqual([{ attempts: 2 }]);
  });

  test('once an index with the current mapping is live, the retry lands and the index equals the database', async () => {
    const current = backend(productSearch);
    await reindex(current, t.orm, productSearch);
    await sql('update search_outbox set available_at = now()');
    await current.indexer.drain();
    expect(await sql('select count(*)::int as n from search_outbox')).toEqual([{ n: 0 }]);
    await current.searchable([productSearch], true);
    expect(await listed()).toEqual(['R-1', 'R-2', 'R-3', 'R-4', 'R-5']);
    expect(await verify(current, productSearch)).toMatchObject({ ok: true });
  }, 120_000);
});
