import { Client } from 'pg';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';
import { Location } from '../../src/modules/contact/location.entity';
import { RetailerLocation } from '../../src/modules/retailer-location/retailer-location.entity';

// Writes go through the ORM, as every other module's do; the triggers must keep the entries in step.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function entry(crlId: string) {
  const [row] = await t.em().getConnection().execute('select * from store_locator_entries where crl_id = ?', [crlId]);
  return row ?? null;
}

async function fresh(crlId: string) {
  const em = t.em();
  const crl = await em.findOneOrFail(CompanyRetailerLocation, crlId, { populate: ['retailerLocation', 'physicalAddress'] });
  return { em, crl };
}

test('a new store is listed with its read-through address', async () => {
  const em = t.em();
  const net = await lf.locatorNetwork(em);
  const type = await lf.storeType(em, net.company, 'Dealer', 1);
  const crl = await lf.store(em, net.companyRetailer, { latitude: 45.5, longitude: -122.6, city: 'Portland', storeType: type });
  expect(await entry(crl.id)).toMatchObject({
    company_id: net.company.id,
    latitude: 45.5,
    longitude: -122.6,
    city: 'Portland',
    province: 'OR',
    country: 'US',
    company_store_type_id: type.id,
  });
});

test('address, flag, link and store type changes follow', async () => {
  const em0 = t.em();
  const net = await lf.locatorNetwork(em0);
  const crl0 = await lf.store(em0, net.companyRetailer, { latitude: 40, longitude: -100 });

  let { em, crl } = await fresh(crl0.id);
  crl.retailerLocation!.physicalAddress!.latitude = 41;
  crl.retailerLocation!.physicalAddress!.city = 'Elsewhere';
  await em.flush();
  expect(await entry(crl.id)).toMatchObject({ latitude: 41, city: 'Elsewhere' });

  ({ em, crl } = await fresh(crl0.id));
  crl.sendingLeads = false;
  await em.flush();
  expect(await entry(crl.id)).toBeNull();
  crl.sendingLeads = true;
  await em.flush();
  expect(await entry(crl.id)).not.toBeNull();

  // A new address on the retailer location.
  ({ em, crl } = await fresh(crl0.id));
  crl.retailerLocation!.physicalAddress = em.create(Location, { city: 'Moved', latitude: 42, longitude: -101 });
  await em.flush();
  expect(await entry(crl.id)).toMatchObject({ latitude: 42, longitude: -101, city: 'Moved' });

  // Unlinked from its retailer location: the CRL's own address (none yet, then one).
  ({ em, crl } = await fresh(crl0.id));
  crl.retailerLocation = null;
  await em.flush();
  expect(await entry(crl.id)).toBeNull();
  crl.physicalAddress = em.create(Location, { city: 'Own', latitude: 43, longitude: -102 });
  await em.flush();
  expect(await entry(crl.id)).toMatchObject({ latitude: 43, city: 'Own' });

  // Store type set, then deleted (the key goes null).
  ({ em, crl } = await fresh(crl0.id));
  const type = em.create(CompanyStoreType, { company: crl.company, name: 'Flagship', boost: 2 });
  crl.companyStoreType = type;
  await em.flush();
  expect((await entry(crl.id)).company_store_type_id).toBe(type.id);
  em.remove(type);
  await em.flush();
  expect((await entry(crl.id)).company_store_type_id).toBeNull();

  // Coordinates cleared or impossible: not listed.
  ({ em, crl } = await fresh(crl0.id));
  crl.physicalAddress!.latitude = 95;
  await em.flush();
  expect(await entry(crl.id)).toBeNull();
  crl.physicalAddress!.latitude = 43;
  await em.flush();
  expect(await entry(crl.id)).not.toBeNull();
  crl.physicalAddress!.longitude = null;
  await em.flush();
  expect(await entry(crl.id)).toBeNull();
});

test('deleting the address, the retailer location or the CRL removes the entry', async () => {
  const em = t.em();
  const net = await lf.locatorNetwork(em);
  const a = await lf.store(em, net.companyRetailer, { latitude: 30, longitude: -90 });
  const b = await lf.store(em, net.companyRetailer, { latitude: 31, longitude: -91 });
  const c = await lf.store(em, net.companyRetailer, { latitude: 32, longitude: -92 });
  for (const id of [a.id, b.id, c.id]) expect(await entry(id)).not.toBeNull();

  const conn = t.em().getConnection();
  await conn.execute('delete from locations where id = (select physical_address_id from retailer_locations where id = ?)', [a.retailerLocation!.id]);
  expect(await entry(a.id)).toBeNull();
  await conn.execute('delete from retailer_locations where id = ?', [b.retailerLocation!.id]);
  expect(await entry(b.id)).toBeNull();
  const em2 = t.em();
  em2.remove(em2.getReference(CompanyRetailerLocation, c.id));
  await em2.flush();
  expect(await entry(c.id)).toBeNull();
});

test('a retailer location shared by two companies lists both stores; moving it moves both', async () => {
  const em = t.em();
  const one = await lf.locatorNetwork(em);
  const crlOne = await lf.store(em, one.companyRetailer, { latitude: 35, longitude: -80 });
  const two = await lf.locatorNetwork(em);
  const cr2 = two.companyRetailer;
  cr2.retailer = one.retailer;
  await em.flush();
  const crlTwo = em.create(CompanyRetailerLocation, { company: two.company, companyRetailer: cr2, retailerLocation: crlOne.retailerLocation });
  await em.flush();
  expect(await entry(crlTwo.id)).toMatchObject({ company_id: two.company.id, latitude: 35 });
  const rl = await t.em().findOneOrFail(RetailerLocation, crlOne.retailerLocation!.id, { populate: ['physicalAddress'] });
  await t.em().getConnection().execute('update locations set latitude = 36 where id = ?', [rl.physicalAddress!.id]);
  expect((await entry(crlOne.id)).latitude).toBe(36);
  expect((await entry(crlTwo.id)).latitude).toBe(36);
});

test('two transactions touching one store both commit', async () => {
  const em = t.em();
  const net = await lf.locatorNetwork(em);
  const crl = await lf.store(em, net.companyRetailer, { latitude: 20, longitude: -100 });
  const { crl: loaded } = await fresh(crl.id);
  const addressId = loaded.retailerLocation!.physicalAddress!.id;
  const first = new Client({ connectionString: t.config.databaseUrl });
  const second = new Client({ connectionString: t.config.databaseUrl });
  await first.connect();
  await second.connect();
  try {
    await first.query('begin');
    await first.query(`update company_retailer_locations set name = 'first' where id = $1`, [crl.id]);
    await second.query('begin');
    const waiting = second.query('update locations set latitude = 21 where id = $1', [addressId]);
    // Commit only once the second transaction waits on the first's lock (a condition, not a delay).
    let settled = false;
    void waiting.finally(() => (settled = true)).catch(() => undefined);
    // (Asked outside the first transaction, which would keep seeing one snapshot of pg_stat_activity.)
    const blocked = async () =>
      (await t.em().getConnection().execute(`select wait_event_type from pg_stat_activity where pid = ?`, [(second as Client & { processID: number }).processID]))[0]?.wait_event_type === 'Lock';
    for (const deadline = Date.now() + 30_000; !settled && !(await blocked()); ) {
      if (Date.now() > deadline) throw new Error('the second update never waited on the first');
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.query('commit');
    await waiting;
    await second.query('commit');
  } finally {
    await first.end();
    await second.end();
  }
  expect((await entry(crl.id)).latitude).toBe(21);
});
