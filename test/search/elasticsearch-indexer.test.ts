// Keeping Elasticsearch in step with PostgreSQL: outbox triggers, the indexer, index creation and the
// zero-downtime reindex, on a real PostgreSQL with an in-memory stand-in for Elasticsearch
// (test/support/fake-elasticsearch.ts). Nothing here talks to a live Elasticsearch.
import { Command } from 'commander';
import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { FakeElasticsearch } from '../support/fake-elasticsearch';
import { Role } from '../../src/modules/user/role';
import type { Company } from '../../src/modules/company/company.entity';
import { productSearch } from '../../src/modules/product/product.search';
import { searchDocuments } from '../../src/modules';
import { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { indexDefinition } from '../../src/search/elasticsearch/mapping';
import { LANES_PER_BATCH, LANES_SCANNED, SEARCH_LOCK, enqueueAll, syncTriggers } from '../../src/search/elasticsearch/outbox.queries';
import { searchBody } from '../../src/search/elasticsearch/query';
import { reindex } from '../../src/search/elasticsearch/reindex';
import { OutboxIndexer } from '../../src/search/elasticsearch/indexer';
import { register } from '../../src/cli/commands/reindex';
import { logger } from '../../src/logger';

let t: TestApp;
let es: FakeElasticsearch;
let backend: ElasticsearchSearchBackend;
let acme: Company;
let adminKey: string;
const ALIAS = 'test_products';

const sql = (query: string, params: unknown[] = []) => t.em().getConnection().execute(query, params as any[]);
const outbox = async () => (await sql('select record_id from search_outbox order by id')).map((r: any) => r.record_id);
/** The outbox's row ids, in order. */
const outboxIds = async () => (await sql('select id::text from search_outbox order by search_outbox.id')).map((r: any) => r.id as string);
/** `count` rows queued for products, each by a transaction (a lane) of its own, due after `delay`. */
const queueLanes = (count: number, delay = '0 seconds') =>
  sql(`do $$ begin
    for i in 1..${count} loop
      insert into search_outbox (document, record_id, available_at) values ('products', gen_random_uuid(), now() + '${delay}'::interval);
      commit;
    end loop; end $$`);
const live = () => es.aliased(ALIAS)[0];
const liveDocs = () => es.docs(live());

beforeAll(async () => {
  // The retry cases log warnings on purpose.
  logger.level = 'silent';
  t = await createTestApp();
  es = new FakeElasticsearch();
  backend = new ElasticsearchSearchBackend(es.client, t.orm, [productSearch], { prefix: 'test_', runIndexer: false });
  const em = t.em();
  acme = await f.company(em, 'Acme');
  adminKey = (await f.userWithKey(em, Role.CompanyAdmin, acme)).key;
});
afterAll(async () => {
  await backend.stop();
  await t.close();
});

describe('start', () => {
  test('installs the outbox triggers, creates the index behind its alias and queues what exists', async () => {
    const existing = await f.product(t.em(), acme, { sku: 'OLD-1', name: 'Old Anvil', category: 'Tools' });
    await backend.start();

    const triggers = await sql(`select tgname, tgrelid::regclass::text as tbl from pg_trigger where tgname like 'leadnet_search_%'`);
    expect(triggers).toEqual([{ tgname: 'leadnet_search_products', tbl: 'products' }]);
    expect(es.aliased(ALIAS)).toHaveLength(1);
    expect(es.indices.get(live())!.definition).toEqual(indexDefinition(productSearch));
    expect(await sql('select index_name, document, state from search_indexes')).toEqual([{ index_name: live(), document: 'products', state: 'live' }]);
    expect(await outbox()).toEqual([existing.id]);
  });

  test('a second start changes nothing', async () => {
    const index = live();
    await backend.start();
    expect(es.aliased(ALIAS)).toEqual([index]);
    expect(es.indices.size).toBe(1);
  });

  test('draining indexes documents built from the SQL of the search document', async () => {
    await backend.indexer.drain();
    expect(await outbox()).toEqual([]);
    const [[id, source]] = [...liveDocs()];
    const row = (await sql('select created_at from products where id = ?', [id]))[0];
    expect(source).toEqual({
      leadnet_id: id,
      leadnet_created_at: new Date(row.created_at).toISOString(),
      leadnet_q: 'OLD-1 Old Anvil Tools',
      leadnet_q_prefix: 'OLD-1 Old Anvil Tools',
      id,
      sku: 'OLD-1',
      name: 'Old Anvil',
      category: 'Tools',
      url: null,
      external_id: null,
      collection_id: null,
      company_id: acme.id,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: expect.any(String),
    });
  });
});

describe('the outbox', () => {
  test('every write through the API lands in the outbox in its own transaction', async () => {
    const created = await api(t, 'post', '/v1/products', { key: adminKey, body: { product: { sku: 'NEW-1', name: 'New Lamp' } } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(await outbox()).toEqual([id]);

    const duplicate = await api(t, 'post', '/v1/products', { key: adminKey, body: { product: { sku: 'NEW-1', name: 'Again' } } });
    expect(duplicate.status).toBe(422);
    expect(await outbox()).toEqual([id]);

    await api(t, 'patch', `/v1/products/${id}`, { key: adminKey, body: { product: { name: 'New Lampshade' } } });
    await backend.indexer.drain();
    expect(liveDocs().get(id)).toMatchObject({ name: 'New Lampshade', leadnet_q: 'NEW-1 New Lampshade' });

    expect((await api(t, 'delete', `/v1/products/${id}`, { key: adminKey })).status).toBe(204);
    expect(await outbox()).toEqual([id]);
    await backend.indexer.drain();
    expect(liveDocs().has(id)).toBe(false);
  });

  test('writes that bypass the service (SQL, cascades) are caught too', async () => {
    const other = await f.company(t.em(), 'Gone Inc');
    const a = await f.product(t.em(), other, { sku: 'G-1', name: 'Gone' });
    await backend.indexer.drain();
    await sql(`update products set name = 'Renamed' where id = ?`, [a.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(a.id)).toMatchObject({ name: 'Renamed' });
    await sql('delete from companies where id = ?', [other.id]);
    await backend.indexer.drain();
    expect(liveDocs().has(a.id)).toBe(false);
  });

  test('an update that changes nothing queues nothing', async () => {
    await sql(`update products set name = name where sku = 'OLD-1'`);
    expect(await outbox()).toEqual([]);
  });

  test('a failed batch stays in the outbox and is retried with backoff', async () => {
    const p = await f.product(t.em(), acme, { sku: 'RETRY-1', name: 'Retry' });
    es.failBulk = 1;
    const failed = await backend.indexer.runBatch();
    expect(failed).toMatchObject({ locked: true, claimed: 1, failed: 1, indexed: 0 });
    const [row] = await sql('select attempts, last_error, available_at > now() as later from search_outbox');
    expect(row).toMatchObject({ attempts: 1, later: true });
    expect(row.last_error).toMatch(/es_rejected_execution_exception|500/);
    expect(liveDocs().has(p.id)).toBe(false);

    expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 0 });
    await sql('update search_outbox set available_at = now()');
    expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 1, indexed: 1, failed: 0 });
    expect(liveDocs().get(p.id)).toMatchObject({ sku: 'RETRY-1' });
    expect(await outbox()).toEqual([]);
  });

  test("a document the engine refuses is retried alone: the batch's others are done", async () => {
    const [kept, refused, gone] = [
      await f.product(t.em(), acme, { sku: 'ITEM-1', name: 'Kept' }),
      await f.product(t.em(), acme, { sku: 'ITEM-2', name: 'Refused' }),
      await f.product(t.em(), acme, { sku: 'ITEM-3', name: 'Deleted' }),
    ];
    await sql('delete from products where id = ?', [gone.id]);
    es.refuseItem = ({ id }) => (id === refused.id ? 'mapper_parsing_exception' : undefined);
    try {
      expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 4, indexed: 3, failed: 1 });
    } finally {
      es.refuseItem = () => undefined;
    }
    expect(liveDocs().get(kept.id)).toMatchObject({ sku: 'ITEM-1' });
    expect(liveDocs().has(refused.id)).toBe(false);
    // Deleting a document the engine never had is no refusal.
    expect(liveDocs().has(gone.id)).toBe(false);
    const rows = await sql('select record_id, attempts, last_error, available_at > now() as later from search_outbox');
    expect(rows).toEqual([{ record_id: refused.id, attempts: 1, last_error: '400 mapper_parsing_exception: mapper_parsing_exception', later: true }]);

    await sql('update search_outbox set available_at = now()');
    expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 1, indexed: 1, failed: 0 });
    expect(liveDocs().get(refused.id)).toMatchObject({ sku: 'ITEM-2' });
  });

  test('a document refused by an index being built is retried, though the live one took it', async () => {
    const building = await backend.createIndex(productSearch);
    await sql(`insert into search_indexes (index_name, document, state) values (?, 'products', 'building')`, [building]);
    try {
      const p = await f.product(t.em(), acme, { sku: 'ITEM-4', name: 'Half' });
      es.refuseItem = ({ index }) => (index === building ? 'es_rejected_execution_exception' : undefined);
      expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 1, indexed: 0, failed: 1 });
      expect(liveDocs().has(p.id)).toBe(true);
      expect(await outbox()).toEqual([p.id]);

      es.refuseItem = () => undefined;
      await sql('update search_outbox set available_at = now()');
      expect(await backend.indexer.runBatch()).toMatchObject({ claimed: 1, indexed: 1, failed: 0 });
      expect(es.docs(building).has(p.id)).toBe(true);
    } finally {
      es.refuseItem = () => undefined;
      await sql(`delete from search_indexes where index_name = ?`, [building]);
      await es.client.indices.delete({ index: building });
    }
  });

  test('an answer that does not account for every document fails the batch: nothing is taken as done', async () => {
    const [a, b] = [await f.product(t.em(), acme, { sku: 'ANSWER-1', name: 'One' }), await f.product(t.em(), acme, { sku: 'ANSWER-2', name: 'Two' })];
    const answers = [
      // One item short, saying all went well.
      (answer: { items: any[] }) => ({ ...answer, errors: false, items: answer.items.slice(1) }),
      // No items at all.
      () => ({ took: 1, errors: false }),
      // An item with an error status and no error object.
      (answer: { items: any[] }) => ({ ...answer, items: [answer.items[0], { index: { _id: b.id, status: 503 } }] }),
    ];
    for (const [i, bulkAnswer] of answers.entries()) {
      es.bulkAnswer = bulkAnswer as any;
      try {
        const result = await backend.indexer.runBatch();
        expect(result).toMatchObject(i < 2 ? { claimed: 2, indexed: 0, failed: 2 } : { claimed: 2, indexed: 1, failed: 1 });
      } finally {
        es.bulkAnswer = (answer) => answer;
      }
      expect(await outbox()).toEqual(i < 2 ? [a.id, b.id] : [b.id]);
      if (i === 2) expect(await sql('select last_error from search_outbox')).toEqual([{ last_error: '503' }]);
      await sql('update search_outbox set available_at = now()');
    }
    await backend.indexer.drain();
    expect(await outbox()).toEqual([]);
  });

  test("a write waits for its accepted documents to be searchable, not for one the engine refused", async () => {
    const writer = new ElasticsearchSearchBackend(es.client, t.orm, [productSearch], {
      prefix: 'test_',
      runIndexer: false,
      writes: { waitMs: 2_000, refresh: 'wait_for' },
    });
    const mark = await writer.beforeWrite();
    const [accepted, refused] = await t.em().transactional(async (em) => [
      await f.product(em, acme, { sku: 'WRITE-1', name: 'Accepted' }),
      await f.product(em, acme, { sku: 'WRITE-2', name: 'Refused' }),
    ]);
    es.refuseItem = ({ id }) => (id === refused.id ? 'mapper_parsing_exception' : undefined);
    const bulks = es.requestsTo('POST', '/_bulk').length;
    try {
      await writer.afterWrite(mark);
    } finally {
      es.refuseItem = () => undefined;
    }
    expect(liveDocs().has(accepted.id)).toBe(true);
    const waits = es.requestsTo('POST', '/_bulk').slice(bulks).filter((r) => r.querystring.refresh === 'wait_for');
    expect(waits).toHaveLength(1);
    expect(await outbox()).toEqual([refused.id]);
    await sql('update search_outbox set available_at = now()');
    await backend.indexer.drain();
  });

  test('only one indexer works at a time', async () => {
    await f.product(t.em(), acme, { sku: 'LOCK-1', name: 'Locked' });
    const result = await t.em().transactional(async (em) => {
      await em.execute('select pg_advisory_xact_lock(?)', [SEARCH_LOCK]);
      return backend.indexer.runBatch();
    });
    expect(result).toEqual({ locked: false, claimed: 0, indexed: 0, failed: 0 });
    expect(await outbox()).toHaveLength(1);
    await backend.indexer.drain();
  });

  test("a batch is shared among the transactions that queued its rows: a backlog holds no later change back", async () => {
    // Three transactions (lanes): a backlog of 10 changes, one change, three changes; and a fourth whose
    // rows wait out a retry. A batch of 4 takes each due lane's oldest rows in turn.
    const queue = async (n: number, sku: string, later = false) =>
      (
        await t.em().transactional((em) =>
          em.execute(
            `insert into search_outbox (document, record_id, available_at)
             select 'products', gen_random_uuid(), now() + ?::interval from generate_series(1, ?::int) returning id::text, ? as sku`,
            [later ? '1 hour' : '0 seconds', n, sku],
          ),
        )
      ).map((r: any) => `${r.sku}${r.id}`);
    const backlog = await queue(10, 'A');
    const [b] = await queue(1, 'B');
    const c = await queue(3, 'C');
    const waiting = await queue(2, 'D', true);
    // The outbox ids of tagged rows, in id order (the order `outboxIds` lists them in).
    const ids = (tagged: string[]) => tagged.map((x) => x.slice(1)).sort((x, y) => Number(x) - Number(y));
    const indexer = new OutboxIndexer(t.orm, backend, { batchSize: 4 });

    expect(await indexer.runBatch()).toMatchObject({ claimed: 4, indexed: 4 });
    const taken = (before: string[], after: string[]) => before.filter((id) => !after.includes(id));
    const all = ids([...backlog, b, ...c, ...waiting]);
    let remaining = await outboxIds();
    expect(taken(all, remaining)).toEqual(ids([backlog[0], b, c[0], backlog[1]]));
    // Then the two lanes left share the next batch; the waiting rows are never taken before they are due.
    expect(await indexer.runBatch()).toMatchObject({ claimed: 4 });
    const second = taken(remaining, (remaining = await outboxIds()));
    expect(second).toEqual(ids([backlog[2], backlog[3], c[1], c[2]]));
    await indexer.drain();
    expect(await outboxIds()).toEqual(ids(waiting));
    // A lane with fewer rows leaves its turns to the others: the batch is full.
    const more = await queue(6, 'A');
    const [one] = await queue(1, 'B');
    remaining = await outboxIds();
    expect(await indexer.runBatch()).toMatchObject({ claimed: 4 });
    expect(taken(remaining, await outboxIds())).toEqual(ids([more[0], more[1], more[2], one]));
    await sql('delete from search_outbox');
  });

  test('a backlog of more small transactions than a batch has lanes still fills whole batches', async () => {
    // What an engine outage leaves: many writes, each its own lane of a row or two. The oldest lanes take
    // their turns; the earliest due rows of the lanes after them fill the rest of the batch.
    await queueLanes(LANES_PER_BATCH + 36);
    const before = await outboxIds();
    const indexer = new OutboxIndexer(t.orm, backend, { batchSize: LANES_PER_BATCH + 16 });

    expect(await indexer.runBatch()).toMatchObject({ claimed: LANES_PER_BATCH + 16 });
    expect(await outboxIds()).toEqual(before.slice(LANES_PER_BATCH + 16));
    expect(await indexer.runBatch()).toMatchObject({ claimed: 20 });
    expect(await outboxIds()).toEqual([]);
  });

  test('lanes past the ones a batch looks among still have their due rows taken', async () => {
    // An outage's aftermath: more lanes than a batch looks among, all waiting out a backoff, and one lane
    // with rows due after them.
    await queueLanes(LANES_SCANNED, '1 hour');
    const due = (
      await t.em().transactional((em) =>
        em.execute(`insert into search_outbox (document, record_id) select 'products', gen_random_uuid() from generate_series(1, 2) returning id::text`),
      )
    ).map((r: any) => r.id as string);
    expect(Number((await sql('select count(distinct lane) from search_outbox'))[0].count)).toBe(LANES_SCANNED + 1);

    expect(await new OutboxIndexer(t.orm, backend, { batchSize: 4 }).runBatch()).toMatchObject({ claimed: 2, indexed: 2 });
    expect(await sql('select id::text from search_outbox where id = any(array[?]::bigint[])', [due])).toEqual([]);
    await sql('delete from search_outbox');
  });

  test('the background indexer drains on its own', async () => {
    const p = await f.product(t.em(), acme, { sku: 'BG-1', name: 'Background' });
    backend.indexer.start();
    try {
      // Until it is indexed, generously bounded (the indexer's rounds run late on a busy machine).
      const deadline = Date.now() + 30_000;
      while (!liveDocs().has(p.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await backend.indexer.stop();
    }
    expect(liveDocs().get(p.id)).toMatchObject({ sku: 'BG-1' });
  });

  test('triggers no document declares any more are dropped', async () => {
    await sql(`create trigger leadnet_search_gone after insert on products for each row execute function leadnet_search_outbox('gone', 'select ($1).id')`);
    await syncTriggers(backend.execute, [productSearch]);
    expect((await sql(`select tgname from pg_trigger where tgname like 'leadnet_search_%'`)).map((r: any) => r.tgname)).toEqual(['leadnet_search_products']);
  });

  test("every registered document's sources install, and a change to a child table queues its parents", async () => {
    await syncTriggers(backend.execute, searchDocuments);
    try {
      const em = t.em();
      const net = await f.network(em);
      await sql('delete from search_outbox');
      const [lead] = await sql(`insert into leads (name, owner_company_id, assignee_id) values ('L', ?, ?) returning id`, [net.company.id, net.storeNorth.id]);
      await sql('delete from search_outbox');
      await sql(`insert into emails (email, lead_id) values ('x@example.test', ?)`, [lead.id]);
      await sql(`update company_retailers set name = 'Renamed' where id = ?`, [net.companyRetailer.id]);
      const queued = await sql('select distinct document, record_id from search_outbox order by document, record_id');
      expect(queued).toEqual(
        expect.arrayContaining([
          { document: 'leads', record_id: lead.id },
          { document: 'company_retailers', record_id: net.companyRetailer.id },
          { document: 'company_retailer_locations', record_id: net.storeNorth.id },
          { document: 'company_retailer_locations', record_id: net.storeSouth.id },
        ]),
      );
    } finally {
      await syncTriggers(backend.execute, [productSearch]);
      await sql('delete from search_outbox');
    }
  });

  test("the leads' stored search text refreshing queues the lead once and not its activities", async () => {
    await syncTriggers(backend.execute, searchDocuments);
    try {
      const net = await f.network(t.em());
      const [lead] = await sql(`insert into leads (name, owner_company_id) values ('L', ?) returning id`, [net.company.id]);
      await sql(`insert into lead_activities (lead_id, type) values (?, 'LeadActivity::Note')`, [lead.id]);
      await sql('delete from search_outbox');
      await sql(`insert into emails (email, lead_id) values ('y@example.test', ?)`, [lead.id]);
      expect(await sql('select document, record_id from search_outbox')).toEqual([{ document: 'leads', record_id: lead.id }]);
    } finally {
      await syncTriggers(backend.execute, [productSearch]);
      await sql('delete from search_outbox');
    }
  });

  test('rows of a document nobody declares are dropped, not retried forever', async () => {
    await sql(`insert into search_outbox (document, record_id) values ('gone', gen_random_uuid())`);
    await backend.indexer.drain();
    expect(await outbox()).toEqual([]);
  });
});

describe('search', () => {
  test('sends the translated body to the alias and maps the answer', async () => {
    const req = { q: 'anvil', where: { category: 'Tools' }, aggs: ['category'], page: 2, perPage: 10, scope: { company_id: acme.id } };
    es.searchResponse = () => ({
      hits: { total: { value: 11, relation: 'eq' }, hits: [{ _id: 'x' }] },
      aggregations: { agg_0: { doc_count: 11, buckets: { sum_other_doc_count: 0, buckets: [{ key: 'Tools', doc_count: 11 }] } } },
    });
    const result = await backend.search(productSearch, req);
    const sent = es.requestsTo('POST', `/${ALIAS}/_search`).at(-1)!;
    expect(sent.body).toEqual(JSON.parse(JSON.stringify(searchBody(productSearch, req).body)));
    expect(result).toEqual({ ids: ['x'], total: 11, aggs: { category: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'Tools', doc_count: 11 }] } } });
  });

  test('keyset paging (cursors) sends search_after with the sort, reversed backward, and answers sort values in list order', async () => {
    es.searchResponse = () => ({ hits: { total: { value: 9, relation: 'eq' }, hits: [{ _id: 'b', sort: [2, 'b'] }, { _id: 'a', sort: [1, 'a'] }] } });
    const forward = await backend.search(productSearch, { page: 1, perPage: 3, scope: { company_id: acme.id }, keyset: { after: [5, 'e'], backward: false } });
    const sentForward = es.requestsTo('POST', `/${ALIAS}/_search`).at(-1)!.body;
    expect(sentForward).toMatchObject({ from: 0, size: 3, search_after: [5, 'e'], sort: [{ leadnet_created_at: { order: 'desc' } }, { leadnet_id: { order: 'asc' } }] });
    expect(forward).toMatchObject({ ids: ['b', 'a'], total: 9, sortValues: [[2, 'b'], [1, 'a']] });
    const backward = await backend.search(productSearch, { page: 1, perPage: 3, scope: { company_id: acme.id }, order: { name: 'asc' }, keyset: { after: ['x', 5, 'e'], backward: true } });
    const sentBackward = es.requestsTo('POST', `/${ALIAS}/_search`).at(-1)!.body;
    expect(sentBackward.sort).toEqual([{ name: { order: 'desc', missing: '_first' } }, { leadnet_created_at: { order: 'asc' } }, { leadnet_id: { order: 'desc' } }]);
    expect(backward).toMatchObject({ ids: ['a', 'b'], sortValues: [[1, 'a'], [2, 'b']] });
  });

  test('a document with no index (no module lists it under `search`) is searched in PostgreSQL', async () => {
    const calls = es.requests.length;
    const unregistered = { ...productSearch, name: 'unregistered_products' };
    const result = await backend.search(unregistered, { q: 'old anvil', page: 1, perPage: 10, scope: { company_id: acme.id } });
    expect(result.total).toBe(1);
    expect(es.requests.length).toBe(calls);
  });

  test('a page beyond the result window: empty past the end, 400 before it', async () => {
    es.searchResponse = () => ({ hits: { total: { value: 3, relation: 'eq' }, hits: [] } });
    const past = await backend.search(productSearch, { page: 5000, perPage: 500, scope: {} });
    expect(past).toEqual({ ids: [], total: 3, aggs: {} });
    expect(es.requestsTo('POST', `/${ALIAS}/_search`).at(-1)!.body).toMatchObject({ from: 0, size: 0 });

    es.searchResponse = () => ({ hits: { total: { value: 5_000_000, relation: 'eq' }, hits: [] } });
    await expect(backend.search(productSearch, { page: 5000, perPage: 500, scope: {} })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('reindex', () => {
  test('builds a new index beside the live one, keeps changes made meanwhile, swaps the alias, drops the old one', async () => {
    const before = live();
    const products = (await sql('select id from products order by id')).map((r: any) => r.id);
    expect(products.length).toBeGreaterThan(3);
    const progress: number[] = [];
    let total = 0;
    let building = '';
    let changed = '';
    let removed = '';

    const result = await reindex(backend, t.orm, productSearch, {
      batchSize: 2,
      onStart: (n) => (total = n),
      onProgress: async (done) => {
        progress.push(done);
        if (progress.length > 1) return;
        // During the build: searches still read the old index, the new one is registered as building.
        building = (await sql(`select index_name from search_indexes where state = 'building'`))[0].index_name;
        expect(live()).toBe(before);
        // A change to a record already loaded, and a deletion, reach both indexes through the outbox.
        [changed, removed] = products;
        await sql(`update products set name = 'Changed during reindex' where id = ?`, [changed]);
        await sql('delete from products where id = ?', [removed]);
        await backend.indexer.drain();
      },
    });

    expect(total).toBe(products.length);
    expect(progress.at(-1)).toBe(products.length);
    expect(result.index).toBe(building);
    expect(result.previous).toEqual([before]);
    expect(es.aliased(ALIAS)).toEqual([building]);
    expect(es.indices.has(before)).toBe(false);
    expect(await sql('select index_name, state from search_indexes')).toEqual([{ index_name: building, state: 'live' }]);

    const docs = es.docs(building);
    expect(docs.size).toBe(products.length - 1);
    expect(docs.get(changed)).toMatchObject({ name: 'Changed during reindex' });
    expect(docs.has(removed)).toBe(false);
    const creates = es.requestsTo('POST', '/_bulk').flatMap((r) => r.body.filter((line: any) => line.create));
    expect(creates.length).toBeGreaterThanOrEqual(products.length - 1);
    // Built with no replica and no refresh, then both put back to what the definition asks for (null: the default).
    expect(es.indices.get(building)!.definition.settings).toMatchObject({ number_of_replicas: 0, refresh_interval: '-1', number_of_shards: 1 });
    expect(es.indices.get(building)!.settings).toEqual([{ refresh_interval: null }, { number_of_replicas: null }]);
  });

  test('the replicas are restored and the index green before the alias moves', async () => {
    const before = live();
    const from = es.requests.length;
    const result = await reindex(backend, t.orm, productSearch, { batchSize: 2 });
    const steps = es.requests
      .slice(from)
      .map((r) => `${r.path.endsWith('_flush') ? 'POST' : r.method} ${r.path.replace(result.index, 'new').replace(before, 'old')}${r.method === 'PUT' && r.path.endsWith('_settings') ? ` ${JSON.stringify(r.body)}` : ''}`);
    const at = (step: string) => steps.indexOf(step);
    expect(at('PUT /new/_settings {"refresh_interval":null}')).toBeGreaterThan(steps.lastIndexOf('POST /_bulk'));
    expect(at('POST /new/_flush')).toBeGreaterThan(at('PUT /new/_settings {"refresh_interval":null}'));
    expect(at('PUT /new/_settings {"number_of_replicas":null}')).toBeGreaterThan(at('POST /new/_flush'));
    expect(at('GET /_cluster/health/new')).toBeGreaterThan(at('PUT /new/_settings {"number_of_replicas":null}'));
    expect(at('POST /_aliases')).toBeGreaterThan(at('GET /_cluster/health/new'));
    expect(es.requestsTo('GET', `/_cluster/health/${result.index}`)[0].querystring).toMatchObject({ wait_for_status: 'green' });
    expect(es.aliased(ALIAS)).toEqual([result.index]);
  });

  test('an index that does not turn green in time is deleted, the old one stays live, with a clear error', async () => {
    const before = live();
    es.health = 'yellow';
    try {
      const started = Date.now();
      await expect(reindex(backend, t.orm, productSearch, { readyTimeoutMs: 300 })).rejects.toThrow(
        /^reindex: the new index test_products_\S+ was not green \(its replicas assigned and copied\) within 300 ms, last yellow; it was deleted and the alias still points at the old index/,
      );
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      es.health = 'green';
    }
    expect(es.aliased(ALIAS)).toEqual([before]);
    expect([...es.indices.keys()]).toEqual([before]);
    expect(await sql('select index_name, state from search_indexes')).toEqual([{ index_name: before, state: 'live' }]);
  });

  test('a failure while restoring the replicas leaves the old index live', async () => {
    const before = live();
    es.failReplicaSettings = 1;
    await expect(reindex(backend, t.orm, productSearch)).rejects.toThrow();
    expect(es.failReplicaSettings).toBe(0);
    expect(es.aliased(ALIAS)).toEqual([before]);
    expect([...es.indices.keys()]).toEqual([before]);
    expect(await sql('select index_name, state from search_indexes')).toEqual([{ index_name: before, state: 'live' }]);
  });

  test.each([1, 2] as const)('reads the next batch while a bulk request is in flight, at most %i bulk requests at once', async (inFlight) => {
    const events: string[] = [];
    let running = 0;
    let most = 0;
    const bulk = backend.client.bulk;
    const execute = backend.execute;
    (backend.client as any).bulk = async (request: { operations: any[] }) => {
      if (!request.operations.some((op) => op.create)) return bulk.call(backend.client, request);
      most = Math.max(most, ++running);
      const readsBefore = reads;
      await new Promise((resolve) => setTimeout(resolve, 30));
      try {
        return await bulk.call(backend.client, request);
      } finally {
        running--;
        if (reads > readsBefore) events.push('a batch read while a bulk request was in flight');
      }
    };
    let reads = 0;
    (backend as any).execute = async (query: string, bindings: unknown[]) => {
      const rows = await execute(query, bindings);
      if (/order by \w+\.id limit/.test(query)) reads++;
      return rows;
    };
    try {
      const count = (await sql('select count(*)::int as n from products'))[0].n;
      const result = await reindex(backend, t.orm, productSearch, { batchSize: 1, inFlight });
      expect(result.documents).toBe(count);
      expect(es.docs(result.index).size).toBe(count);
    } finally {
      (backend.client as any).bulk = bulk;
      (backend as any).execute = execute;
    }
    expect(most).toBe(inFlight);
    expect(events).toContain('a batch read while a bulk request was in flight');
  });

  test('a bulk request failing while the next is in flight: nothing is left behind', async () => {
    const before = live();
    es.failBulk = 1;
    await expect(reindex(backend, t.orm, productSearch, { batchSize: 1, inFlight: 2 })).rejects.toThrow();
    // Give a request that would outlive the failure time to land (a `create` into a deleted index makes it again).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...es.indices.keys()]).toEqual([before]);
    expect(es.aliased(ALIAS)).toEqual([before]);
  });

  test('a failed reindex leaves the live index alone and removes the new one', async () => {
    const before = live();
    es.failBulk = 1;
    await expect(reindex(backend, t.orm, productSearch)).rejects.toThrow();
    expect(es.aliased(ALIAS)).toEqual([before]);
    expect(es.indices.size).toBe(1);
    expect(await sql('select index_name, state from search_indexes')).toEqual([{ index_name: before, state: 'live' }]);
  });

  test('a reindex whose bulk answer leaves out a document fails, and the live index stays', async () => {
    const before = live();
    es.bulkAnswer = (answer) => ({ ...answer, errors: false, items: answer.items.slice(1) });
    try {
      await expect(reindex(backend, t.orm, productSearch)).rejects.toThrow(/writes sent, \d+ answered/);
    } finally {
      es.bulkAnswer = (answer) => answer;
    }
    expect(es.aliased(ALIAS)).toEqual([before]);
    expect(await sql('select index_name, state from search_indexes')).toEqual([{ index_name: before, state: 'live' }]);
  });

  test('`leadnet reindex [resource]` with a progress bar', async () => {
    const chunks: string[] = [];
    const stream = { write: (s: string) => (chunks.push(String(s)), true), isTTY: false } as unknown as NodeJS.WritableStream;
    const outcomes: Array<{ text?: string; error?: string }> = [];
    // The CLI runtime's contract (src/cli/runtime.ts on the cli branch): run `work` in a session, print its result.
    const runtime = {
      action: (command: Command, work: (session: any, opts: any, args: string[]) => Promise<{ json: unknown; text: string }>) =>
        command.action(async (...received: unknown[]) => {
          const cmd = received[received.length - 1] as Command;
          const session = { config: { ...t.config, searchUrl: 'http://elasticsearch.test:9200' }, orm: async () => t.orm };
          await work(session, cmd.opts(), cmd.processedArgs).then(
            (r) => outcomes.push({ text: r.text }),
            (e: Error) => outcomes.push({ error: e.message }),
          );
        }),
    };
    const program = new Command().exitOverride();
    register(program, runtime, { backend: () => backend, stream });
    const before = live();
    await program.parseAsync(['node', 'leadnet', 'reindex', 'products', '--batch-size', '2']);
    expect(outcomes).toEqual([{ text: expect.stringMatching(/^test_products_\S+: \d+ documents \(replaced test_products_/) }]);
    expect(live()).not.toBe(before);
    expect(chunks.join('')).toContain('products');

    await program.parseAsync(['node', 'leadnet', 'reindex', 'nope']);
    await program.parseAsync(['node', 'leadnet', 'reindex', '--batch-size', 'x']);
    await program.parseAsync(['node', 'leadnet', 'reindex', '--batch-size', '10001']);
    expect(outcomes.slice(1)).toEqual([
      { error: 'Unknown resource nope; one of: products' },
      { error: '--batch-size must be an integer from 1 to 10000' },
      { error: '--batch-size must be an integer from 1 to 10000' },
    ]);
  });

  test('an index Elasticsearch lost is recreated and refilled', async () => {
    es.indices.clear();
    es.aliases.clear();
    await backend.ensureIndex(productSearch);
    expect(es.aliased(ALIAS)).toHaveLength(1);
    await backend.indexer.drain();
    const count = (await sql('select count(*)::int as n from products'))[0].n;
    expect(liveDocs().size).toBe(count);
  });

  test("a new index's first load is queued in statements of a bounded number of ids, each id once", async () => {
    for (let i = 0; i < 7; i++) await f.product(t.em(), acme, { sku: `BATCH-${i}` });
    await backend.indexer.drain();
    const ids = (await sql('select id from products order by id')).map((r: any) => r.id);
    const statements: string[] = [];
    const execute = (query: string, params?: unknown[]) => (statements.push(query), sql(query, params));
    expect(await enqueueAll(execute, productSearch, 3)).toBe(ids.length);
    expect(statements).toHaveLength(Math.floor(ids.length / 3) + 1);
    expect((await outbox()).sort()).toEqual(ids);
    await backend.indexer.drain();
    expect(await outbox()).toEqual([]);
  });
});
