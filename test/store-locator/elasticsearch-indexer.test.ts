// The store locator index kept in step through the search outbox (triggers, indexer, reindex), on a real
// PostgreSQL with the in-memory stand-in for Elasticsearch (test/support/fake-elasticsearch.ts).
import { Command } from 'commander';
import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import * as lf from '../support/locator-factories';
import { FakeElasticsearch } from '../support/fake-elasticsearch';
import { Role } from '../../src/modules/user/role';
import { ElasticsearchSearchBackend } from '../../src/search/elasticsearch/backend';
import { reindex } from '../../src/search/elasticsearch/reindex';
import { register } from '../../src/cli/commands/reindex';
import { STORE_LOCATOR_INDEX } from '../../src/modules/store-locator/store-locator.elasticsearch';
import { storeLocatorSearch } from '../../src/modules/store-locator/store-locator.search';
import { searchDocuments } from '../../src/modules';
import { definitionVersion, VERSION_META } from '../../src/search/elasticsearch/mapping';
import { logger } from '../../src/logger';

/** The store locator's own index definition, stamped with its version (`mappings._meta`). */
const STORE_LOCATOR_DEFINITION = JSON.parse(
  JSON.stringify({
    settings: { ...STORE_LOCATOR_INDEX.settings, translog: { durability: 'request' } },
    mappings: { ...STORE_LOCATOR_INDEX.mappings, _meta: { [VERSION_META]: definitionVersion(storeLocatorSearch) } },
  }),
);

let t: TestApp;
let es: FakeElasticsearch;
let backend: ElasticsearchSearchBackend;
const ALIAS = 'test_store_locator';

const sql = (query: string, params: unknown[] = []) => t.em().getConnection().execute(query, params as any[]);
const queued = async () => [...new Set((await sql(`select record_id from search_outbox where document = 'store_locator'`)).map((r: any) => r.record_id))].sort();
const live = () => es.aliased(ALIAS)[0];
const liveDocs = () => es.docs(live());
/** The retailer location's address of a store made by `lf.store`. */
const addressOf = async (crlId: string) =>
  (await sql('select rl.physical_address_id as id from company_retailer_locations crl join retailer_locations rl on rl.id = crl.retailer_location_id where crl.id = ?', [crlId]))[0].id;

let net: Awaited<ReturnType<typeof lf.locatorNetwork>>;
let adminKey: string;

beforeAll(async () => {
  logger.level = 'silent';
  t = await createTestApp();
  es = new FakeElasticsearch();
  backend = new ElasticsearchSearchBackend(es.client, t.orm, [storeLocatorSearch], { prefix: 'test_', runIndexer: false });
  net = await lf.locatorNetwork(t.em());
  adminKey = (await f.userWithKey(t.em(), Role.CompanyAdmin, net.company)).key;
});
afterAll(async () => {
  await backend.stop();
  await t.close();
});

test('is registered with the list documents, so the server, the indexer and `leadnet reindex` know it', () => {
  expect(searchDocuments).toContain(storeLocatorSearch);
});

describe('start and the first fill', () => {
  test('installs triggers on every table a store document reads, creates the index, fills it with the listed stores only', async () => {
    const em = t.em();
    const type = await lf.storeType(em, net.company, 'Dealer');
    const product = await lf.catalogProduct(em, net.company, { sku: 'ANV-1' });
    const listed = await lf.store(em, net.companyRetailer, { latitude: 45.5, longitude: -122.6, city: 'Portland', storeType: type, stock: [{ product, stocked: true }] });
    const silent = await lf.store(em, net.companyRetailer, { receivingLeads: false });
    const nowhere = await lf.store(em, net.companyRetailer, { latitude: null, longitude: null });
    await backend.start();

    const triggers = await sql(`select tgname, tgrelid::regclass::text as tbl from pg_trigger where tgname like 'leadnet_search_%' order by tgname`);
    expect(triggers.map((r: any) => r.tbl).sort()).toEqual(['company_retailer_locations', 'company_store_types', 'locations', 'products', 'retailer_locations', 'stocks']);
    expect(es.indices.get(live())!.definition).toEqual(STORE_LOCATOR_DEFINITION);
    expect(await queued()).toEqual([listed.id, silent.id, nowhere.id].sort());

    await backend.indexer.drain();
    expect(await queued()).toEqual([]);
    expect([...liveDocs().keys()]).toEqual([listed.id]);
    expect(liveDocs().get(listed.id)).toEqual({
      id: listed.id,
      company_id: net.company.id,
      sending_leads: true,
      receiving_leads: true,
      location: { lat: 45.5, lon: -122.6 },
      city: 'Portland',
      province: 'OR',
      country: 'US',
      store_type: 'Dealer',
      store_type_id: type.id,
      stocked_product_ids: [product.id],
      stocked_product_skus: ['ANV-1'],
      stocked_product_external_ids: [],
      stocked_product_collection_ids: [],
      available_product_ids: [],
      available_product_skus: [],
      available_product_external_ids: [],
      available_product_collection_ids: [],
    });
  });
});

describe('writes queue the affected stores and the indexer applies them', () => {
  test('a CRL write through the API; a store whose lead flag goes off leaves the index, and comes back', async () => {
    const crl = await lf.store(t.em(), net.companyRetailer, { city: 'Salem' });
    await backend.indexer.drain();
    expect(liveDocs().has(crl.id)).toBe(true);
    const type = await lf.storeType(t.em(), net.company, 'Flagship', 2);
    await sql('delete from search_outbox');

    const patch = (body: Record<string, unknown>) =>
      api(t, 'patch', `/v1/company_retailer_locations/${crl.id}`, { key: adminKey, body: { company_retailer_location: body } });
    expect((await patch({ company_store_type_id: type.id })).status).toBe(200);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ store_type: 'Flagship', store_type_id: type.id });

    expect((await patch({ sending_leads: false })).status).toBe(200);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().has(crl.id)).toBe(false);

    expect((await patch({ sending_leads: true })).status).toBe(200);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ city: 'Salem', sending_leads: true });
  });

  test("its retailer location's address: a move is indexed, coordinates removed take the store out", async () => {
    const crl = await lf.store(t.em(), net.companyRetailer, { latitude: 40, longitude: -100, city: 'Nowhere' });
    const other = await lf.store(t.em(), net.companyRetailer, { latitude: 41, longitude: -101 });
    await backend.indexer.drain();
    const address = await addressOf(crl.id);

    await sql(`update locations set city = 'Elsewhere', latitude = 41.5 where id = ?`, [address]);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ city: 'Elsewhere', location: { lat: 41.5, lon: -100 } });

    await sql('update locations set latitude = null, longitude = null where id = ?', [address]);
    await backend.indexer.drain();
    expect(liveDocs().has(crl.id)).toBe(false);
    expect(liveDocs().has(other.id)).toBe(true);

    // The CRL's own address counts when it has no retailer location.
    const own = await lf.store(t.em(), net.companyRetailer, { onRetailerLocation: false, latitude: 10, longitude: 10 });
    await backend.indexer.drain();
    const [{ id: ownAddress }] = await sql('select physical_address_id as id from company_retailer_locations where id = ?', [own.id]);
    await sql(`update locations set country = 'CA' where id = ?`, [ownAddress]);
    expect(await queued()).toEqual([own.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(own.id)).toMatchObject({ country: 'CA', location: { lat: 10, lon: 10 } });
  });

  test('stock, products and store types', async () => {
    const type = await lf.storeType(t.em(), net.company, 'Outlet');
    const crl = await lf.store(t.em(), net.companyRetailer, { storeType: type });
    const product = await lf.catalogProduct(t.em(), net.company, { sku: 'LAMP-1' });
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ stocked_product_skus: [], available_product_skus: [] });

    const [stock] = await sql('insert into stocks (company_retailer_location_id, product_id, stocked, available) values (?, ?, true, false) returning id', [crl.id, product.id]);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ stocked_product_skus: ['LAMP-1'], stocked_product_ids: [product.id], available_product_skus: [] });

    await sql('update stocks set available = true where id = ?', [stock.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ available_product_skus: ['LAMP-1'] });

    await sql(`update products set sku = 'LAMP-2', external_id = 'ext-9' where id = ?`, [product.id]);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ stocked_product_skus: ['LAMP-2'], stocked_product_external_ids: ['ext-9'] });

    await sql(`update company_store_types set name = 'Factory Outlet' where id = ?`, [type.id]);
    expect(await queued()).toEqual([crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ store_type: 'Factory Outlet' });

    await sql('delete from products where id = ?', [product.id]);
    await backend.indexer.drain();
    expect(liveDocs().get(crl.id)).toMatchObject({ stocked_product_skus: [], available_product_skus: [] });
  });

  test('a deleted store leaves the index', async () => {
    const crl = await lf.store(t.em(), net.companyRetailer);
    await backend.indexer.drain();
    expect(liveDocs().has(crl.id)).toBe(true);
    await sql('delete from stocks where company_retailer_location_id = ?', [crl.id]);
    await sql('delete from company_retailer_locations where id = ?', [crl.id]);
    await backend.indexer.drain();
    expect(liveDocs().has(crl.id)).toBe(false);
  });

  test('lead addresses and other unrelated writes queue nothing', async () => {
    await sql(`insert into locations (city, latitude, longitude) values ('Lead town', 1, 1)`);
    await sql(`update retailers set name = 'Renamed' where id = ?`, [net.retailer.id]);
    expect(await queued()).toEqual([]);
  });
});

describe('reindex', () => {
  const expected = async () =>
    (
      await sql(`select crl.id from company_retailer_locations crl
                   left join retailer_locations rl on rl.id = crl.retailer_location_id
                   join locations l on l.id = coalesce(rl.physical_address_id, crl.physical_address_id)
                  where crl.sending_leads and crl.receiving_leads and l.latitude is not null and l.longitude is not null order by crl.id`)
    ).map((r: any) => r.id);

  test('builds a new index with the listed stores, applies changes made meanwhile, swaps the alias, drops the old one', async () => {
    const before = live();
    const dropped = await lf.store(t.em(), net.companyRetailer, { city: 'Dropped during reindex' });
    const moved = await lf.store(t.em(), net.companyRetailer, { city: 'Moved during reindex' });
    await backend.indexer.drain();
    const all = (await sql('select count(*)::int as n from company_retailer_locations'))[0].n;
    let building = '';
    const result = await reindex(backend, t.orm, storeLocatorSearch, {
      batchSize: 2,
      onProgress: async (done) => {
        if (building) return;
        building = (await sql(`select index_name from search_indexes where state = 'building'`))[0].index_name;
        expect(live()).toBe(before);
        await sql('update company_retailer_locations set receiving_leads = false where id = ?', [dropped.id]);
        await sql(`update locations set city = 'Moved' where id = ?`, [await addressOf(moved.id)]);
        await backend.indexer.drain();
        expect(done).toBe(2);
      },
    });

    expect(result).toMatchObject({ index: building, documents: all, previous: [before] });
    expect(es.aliased(ALIAS)).toEqual([building]);
    expect(es.indices.has(before)).toBe(false);
    // Built without replicas or refreshes, both put back to the definition's own before the swap.
    const { definition, settings } = es.indices.get(building)!;
    expect({ ...definition, settings: { ...definition.settings, number_of_replicas: undefined, refresh_interval: undefined } }).toEqual(STORE_LOCATOR_DEFINITION);
    expect(settings).toEqual([{ refresh_interval: null }, { number_of_replicas: null }]);
    const docs = es.docs(building);
    expect([...docs.keys()].sort()).toEqual(await expected());
    expect(docs.has(dropped.id)).toBe(false);
    expect(docs.get(moved.id)).toMatchObject({ city: 'Moved' });
  });

  test('`leadnet reindex store_locator`', async () => {
    const outcomes: string[] = [];
    const stream = { write: () => true, isTTY: false } as unknown as NodeJS.WritableStream;
    const runtime = {
      action: (command: Command, work: (session: any, opts: any, args: string[]) => Promise<{ json: unknown; text: string }>) =>
        command.action(async (...received: unknown[]) => {
          const cmd = received[received.length - 1] as Command;
          const session = { config: { ...t.config, searchUrl: 'http://elasticsearch.test:9200' }, orm: async () => t.orm };
          await work(session, cmd.opts(), cmd.processedArgs).then((r) => outcomes.push(r.text), (e: Error) => outcomes.push(`error: ${e.message}`));
        }),
    };
    const program = new Command().exitOverride();
    register(program, runtime, { backend: () => backend, stream });
    const before = live();
    await program.parseAsync(['node', 'leadnet', 'reindex', 'store_locator']);
    expect(outcomes).toEqual([expect.stringMatching(new RegExp(`^test_store_locator_\\S+: \\d+ documents \\(replaced ${before}\\)$`))]);
    expect(live()).not.toBe(before);
    expect([...liveDocs().keys()].sort()).toEqual(await expected());
  });
});
