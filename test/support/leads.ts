import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import * as contextModule from '../../src/context';
import type { Geocoder } from '../../src/geo/geocoder';
import { Role } from '../../src/modules/user/role';
import { api, createTestApp, type TestApp } from './app';
import * as f from './factories';

let seq = 0;

/** A quote-request lead body (SPEC 4.3) with a fresh email; `extra` overrides keys of `lead`. */
export function quoteRequest(extra: Record<string, unknown> = {}) {
  const n = ++seq;
  return {
    lead: {
      name: `Shopper ${n}`,
      emails: [{ email: `shopper${n}.${Date.now()}@example.com` }],
      lead_activities: [{ type: 'LeadActivity::QuoteRequest', data: { products: [{ name: 'Anvil', sku: 'ANV-1', quantity: 1 }] } }],
      ...extra,
    },
  };
}

/** One user of every role around `network()`, plus an admin of another company and the operator. */
export async function roles(em: EntityManager) {
  const net = await f.network(em);
  const other = await f.network(em);
  const northRl = net.storeNorth.retailerLocation!;
  const users = {
    companyAdmin: await f.userWithKey(em, Role.CompanyAdmin, net.company),
    territoryManager: await f.userWithKey(em, Role.CompanyTerritoryManager, net.company, { territory: net.north }),
    retailerManager: await f.userWithKey(em, Role.CompanyRetailerManager, net.company, { companyRetailers: [net.companyRetailer] }),
    locationUser: await f.userWithKey(em, Role.CompanyLocationUser, net.company, { companyRetailerLocations: [net.storeNorth] }),
    salesAssociate: await f.userWithKey(em, Role.CompanySalesAssociate, net.company, { companyRetailerLocations: [net.storeSouth] }),
    retailerAdmin: await f.userWithKey(em, Role.RetailerAdmin, net.retailer),
    storeManager: await f.userWithKey(em, Role.RetailerStoreManager, net.retailer, { retailerLocations: [northRl] }),
    otherAdmin: await f.userWithKey(em, Role.CompanyAdmin, other.company),
    operator: await f.userWithKey(em, Role.PlatformOperator, null),
  };
  return { net, other, users };
}

/** Creates a lead over REST and returns its body (fails the test unless 201). */
export async function createLead(t: TestApp, key: string, body: Record<string, unknown> = quoteRequest()) {
  const res = await api(t, 'post', '/v1/leads', { key, body });
  if (res.status !== 201) throw new Error(`lead create gave ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Replaces the geocoder of every request context built while the returned spy is active, whatever
 * geocoder the app is configured with.
 */
export function withGeocoder(geocoder: Geocoder) {
  const original = contextModule.buildContext;
  return jest.spyOn(contextModule, 'buildContext').mockImplementation(async (...args) => {
    const ctx = await original(...args);
    ctx.geocoder = geocoder;
    return ctx;
  });
}

/**
 * A suite's app (created with `env`), the roles around its network, and a PostgreSQL client of the suite's
 * own on the app's database (outside the app's pool: locks to hold, pg_stat_activity to read): made before
 * the suite's tests, closed after them. Its fields are read inside the tests.
 */
export function leadSuite(env: Record<string, string> = {}) {
  const suite = {} as { t: TestApp; r: Awaited<ReturnType<typeof roles>>; db: Client };
  beforeAll(async () => {
    suite.t = await createTestApp(env);
    suite.r = await roles(suite.t.em());
    suite.db = new Client({ connectionString: suite.t.config.databaseUrl });
    await suite.db.connect();
  });
  afterAll(async () => {
    await suite.db?.end();
    await suite.t?.close();
  });
  return suite;
}
