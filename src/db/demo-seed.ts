import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { Company } from '../modules/company/company.entity';
import { Retailer } from '../modules/retailer/retailer.entity';
import { Territory } from '../modules/territory/territory.entity';
import { CompanyStoreType } from '../modules/company-store-type/company-store-type.entity';
import { Collection } from '../modules/collection/collection.entity';
import { Product } from '../modules/product/product.entity';
import { ProductImage } from '../modules/product/product-image.entity';
import { Stock } from '../modules/product/stock.entity';
import { CompanyRetailer } from '../modules/company-retailer/company-retailer.entity';
import { CompanyRetailerLocation } from '../modules/company-retailer-location/company-retailer-location.entity';
import { RetailerLocation } from '../modules/retailer-location/retailer-location.entity';
import { Hour, WEEKDAYS } from '../modules/retailer-location/hour.entity';
import { Location } from '../modules/contact/location.entity';
import { Email } from '../modules/contact/email.entity';
import { PhoneNumber } from '../modules/contact/phone-number.entity';
import { User } from '../modules/user/user.entity';
import { Role } from '../modules/user/role';
import { issueApiKey } from '../modules/user/user.service';
import { createDemoLeads } from './demo-leads';

/** What the demo seed created, with the only copy of each plain API key. */
export interface DemoSeed {
  company: { id: string; name: string };
  retailer: { id: string; name: string };
  stores: Array<{ companyRetailerLocationId: string; retailerLocationId: string; name: string; city: string }>;
  products: Array<{ id: string; sku: string; name: string }>;
  /** How many leads (with timelines) the seed spread over the stores. */
  leads: number;
  users: Array<{ role: Role; email: string; id: string; apiKey: string }>;
}

const STORE_TYPES = [
  { name: 'Flagship', boost: 2 },
  { name: 'Premier Dealer', boost: 1 },
  { name: 'Dealer', boost: 0 },
];

/** Enough leads for lists, facets and the IDE to show something on the first start. */
const DEMO_LEADS = 300;

const TERRITORIES = ['Pacific Northwest', 'Mountain', 'Canada'];

const STORES = [
  { slug: 'portland', areaCode: '503', street: '921 SW Morrison St', city: 'Portland', province: 'OR', postalCode: '97205', country: 'US', latitude: 45.5197, longitude: -122.681, timezone: 'America/Los_Angeles', phone: '+15035550142', territory: 'Pacific Northwest', storeType: 'Flagship', sundayOpen: true },
  { slug: 'seattle', areaCode: '206', street: '1520 4th Ave', city: 'Seattle', province: 'WA', postalCode: '98101', country: 'US', latitude: 47.6109, longitude: -122.3374, timezone: 'America/Los_Angeles', phone: '+12065550123', territory: 'Pacific Northwest', storeType: 'Premier Dealer', sundayOpen: true },
  { slug: 'denver', areaCode: '303', street: '1701 Wynkoop St', city: 'Denver', province: 'CO', postalCode: '80202', country: 'US', latitude: 39.7536, longitude: -104.9997, timezone: 'America/Denver', phone: '+13035550177', territory: 'Mountain', storeType: 'Dealer', sundayOpen: false },
  { slug: 'vancouver', areaCode: '604', street: '1055 W Georgia St', city: 'Vancouver', province: 'BC', postalCode: 'V6E 3P3', country: 'CA', latitude: 49.2855, longitude: -123.1226, timezone: 'America/Vancouver', phone: '+16045550199', territory: 'Canada', storeType: 'Premier Dealer', sundayOpen: true },
];

const PRODUCTS = [
  { sku: 'CC-RIDGE-29', name: 'Ridgeline 29 Trail Bike', category: 'Bikes', externalId: 'NW-1001', inCollection: true },
  { sku: 'CC-GRAVEL-700', name: 'Gravel Runner 700c', category: 'Bikes', externalId: 'NW-1002', inCollection: true },
  { sku: 'CC-HELMET-M', name: 'Summit MIPS Helmet', category: 'Helmets', externalId: 'NW-2001', inCollection: false },
  { sku: 'CC-LIGHT-800', name: 'Beacon 800 Headlight', category: 'Accessories', externalId: 'NW-3001', inCollection: false },
];

/** One user of every role; the assignments are made in `seedDemo`. */
const PEOPLE: Array<{ role: Role; email: string; name: string }> = [
  { role: Role.PlatformOperator, email: 'operator@leadnet.example', name: 'Pat Operator' },
  { role: Role.CompanyAdmin, email: 'admin@cascade-cycles.example', name: 'Casey Admin' },
  { role: Role.CompanyTerritoryManager, email: 'pnw.manager@cascade-cycles.example', name: 'Terry Northwest' },
  { role: Role.CompanyRetailerManager, email: 'retail.manager@cascade-cycles.example', name: 'Robin Retail' },
  { role: Role.CompanyLocationUser, email: 'portland.desk@cascade-cycles.example', name: 'Lou Portland' },
  { role: Role.CompanySalesAssociate, email: 'sales@cascade-cycles.example', name: 'Sam Sales' },
  { role: Role.RetailerAdmin, email: 'admin@summit-sports.example', name: 'Alex Summit' },
  { role: Role.RetailerStoreManager, email: 'seattle.manager@summit-sports.example', name: 'Morgan Seattle' },
];

/**
 * Whether `npm start` seeds the demo network (when the database is still empty): only on the embedded
 * database and unless `SEED_DEMO=false`. A `DATABASE_URL` start never seeds.
 */
export function demoSeedWanted(config: Pick<Config, 'databaseUrl' | 'seedDemo'>): boolean {
  return !config.databaseUrl && config.seedDemo;
}

/**
 * Seeds a small demo network (one company, one retailer with four stores, products, stock, a few hundred
 * leads with timelines and one user of every role with an API key) in one transaction. Returns null,
 * changing nothing, when the database already has a company (or one of the demo users' emails): the seed
 * only ever runs on an empty database.
 */
export async function seedDemo(em: EntityManager): Promise<DemoSeed | null> {
  return em.transactional(async (tx) => {
    // Two processes starting at once on the same empty database seed it once.
    await tx.execute(`select pg_advisory_xact_lock(hashtext('leadnet.demo-seed'))`);
    const demoEmails = PEOPLE.map((p) => p.email);
    if ((await tx.count(Company, {})) > 0 || (await tx.count(User, { email: { $in: demoEmails } })) > 0) return null;

    const company = tx.create(Company, { name: 'Cascade Cycles' });
    const retailer = tx.create(Retailer, { name: 'Summit Sports' });
    const territories = new Map(TERRITORIES.map((name) => [name, tx.create(Territory, { company, name })]));
    const storeTypes = new Map(STORE_TYPES.map((t) => [t.name, tx.create(CompanyStoreType, { company, name: t.name, boost: t.boost })]));
    const collection = tx.create(Collection, { company, name: 'Trail & Gravel' });
    const products = PRODUCTS.map((p) => {
      const product = tx.create(Product, {
        company,
        sku: p.sku,
        name: p.name,
        category: p.category,
        externalId: p.externalId,
        url: `https://cascade-cycles.example/products/${p.sku.toLowerCase()}`,
        collection: p.inCollection ? collection : null,
      });
      const image = `https://cascade-cycles.example/images/${p.sku.toLowerCase()}`;
      tx.create(ProductImage, { product, url: `${image}.jpg`, thumbnailUrl: `${image}-thumb.jpg`, position: 0 });
      return product;
    });

    const headquarters = tx.create(Location, {
      addressName: 'Summit Sports head office',
      streetLineOne: '1 SW Columbia St',
      city: 'Portland',
      province: 'OR',
      postalCode: '97204',
      country: 'US',
      latitude: 45.5145,
      longitude: -122.6767,
      coordinatesSource: 'explicit',
    });
    const companyRetailer = tx.create(CompanyRetailer, { company, retailer, name: 'Summit Sports', physicalAddress: headquarters });

    const stores = STORES.map((s, i) => {
      const name = `Summit Sports ${s.city}`;
      const retailerLocation = tx.create(RetailerLocation, {
        retailer,
        name,
        website: `https://summit-sports.example/stores/${s.slug}`,
        timezone: s.timezone,
        physicalAddress: tx.create(Location, {
          addressName: name,
          streetLineOne: s.street,
          city: s.city,
          province: s.province,
          postalCode: s.postalCode,
          country: s.country,
          latitude: s.latitude,
          longitude: s.longitude,
          coordinatesSource: 'explicit',
        }),
        generalEmail: tx.create(Email, { email: `${s.slug}@summit-sports.example` }),
        generalPhoneNumber: tx.create(PhoneNumber, { phoneNumber: s.phone, countryCode: s.country }),
      });
      for (const day of WEEKDAYS) {
        const open = day !== 'sunday' || s.sundayOpen;
        const [from, to] = day === 'saturday' ? [10, 18] : day === 'sunday' ? [11, 17] : [10, 19];
        tx.create(Hour, {
          retailerLocation,
          day,
          open,
          openAtHour: open ? from : null,
          openAtMinute: open ? 0 : null,
          closeAtHour: open ? to : null,
          closeAtMinute: open ? 0 : null,
        });
      }
      const crl = tx.create(CompanyRetailerLocation, {
        company,
        companyRetailer,
        retailerLocation,
        territory: territories.get(s.territory)!,
        companyStoreType: storeTypes.get(s.storeType)!,
        deliveryRadius: 25,
        website: retailerLocation.website,
        sendingLeads: true,
        receivingLeads: true,
      });
      products.forEach((product, j) => {
        const stocked = (i + j) % 3 !== 2;
        tx.create(Stock, { companyRetailerLocation: crl, product, stocked, available: stocked || (i + j) % 2 === 0 });
      });
      return { crl, retailerLocation, name, city: s.city, spec: s };
    });
    const [portland, seattle] = stores;
    const leads = createDemoLeads(tx as EntityManager, company, stores.map((s) => ({ crl: s.crl, ...s.spec })), products, DEMO_LEADS);

    const assignments: Partial<Record<Role, (u: User) => void>> = {
      [Role.CompanyTerritoryManager]: (u) => (u.territory = territories.get('Pacific Northwest')!),
      [Role.CompanyRetailerManager]: (u) => u.companyRetailers.add(companyRetailer),
      [Role.CompanyLocationUser]: (u) => u.companyRetailerLocations.add(portland.crl),
      [Role.CompanySalesAssociate]: (u) => u.companyRetailerLocations.add(portland.crl, seattle.crl),
      [Role.RetailerStoreManager]: (u) => u.retailerLocations.add(seattle.retailerLocation),
    };
    const users = PEOPLE.map((p) => {
      const user = tx.create(User, {
        email: p.email,
        name: p.name,
        role: p.role,
        company: p.email.endsWith('@cascade-cycles.example') ? company : null,
        retailer: p.email.endsWith('@summit-sports.example') ? retailer : null,
        territory: null,
      });
      assignments[p.role]?.(user);
      const { plainKey } = issueApiKey(tx as EntityManager, user, 'demo');
      return { role: p.role, email: p.email, id: user.id, apiKey: plainKey };
    });

    await tx.flush();
    return {
      company: { id: company.id, name: company.name },
      retailer: { id: retailer.id, name: retailer.name },
      stores: stores.map((s) => ({ companyRetailerLocationId: s.crl.id, retailerLocationId: s.retailerLocation.id, name: s.name, city: s.city })),
      products: products.map((p) => ({ id: p.id, sku: p.sku, name: p.name })),
      leads: leads.length,
      users,
    };
  });
}

/** Two requests to try with the seeded keys: list products, and create a lead with a quote request (SPEC 4.3). */
export function demoExamples(seed: DemoSeed, baseUrl: string): { listProducts: string; createLead: string } {
  const key = seed.users.find((u) => u.role === Role.CompanyAdmin)!.apiKey;
  const store = seed.stores[0];
  const product = seed.products[0];
  const lead = {
    lead: {
      name: 'Jordan Rivera',
      emails: [{ email: 'jordan.rivera@example.com' }],
      // Not the README's example number: following both must create two leads, not merge them.
      phone_numbers: [{ phone_number: '503-555-0163', country_code: 'US' }],
      location: { city: 'Portland', province: 'OR', postal_code: '97205', country: 'US' },
      assignee_type: 'CompanyRetailerLocation',
      assignee_id: store.companyRetailerLocationId,
      lead_activities: [
        {
          type: 'LeadActivity::QuoteRequest',
          source_type: 'CompanyRetailerLocation',
          source_id: store.companyRetailerLocationId,
          data: { products: [{ sku: product.sku, name: product.name, quantity: 1 }], notes: 'Looking for a test ride this weekend.' },
        },
      ],
    },
  };
  return {
    listProducts: `curl -s '${baseUrl}/v1/products' -H 'X-Api-Key: ${key}'`,
    createLead: [
      `curl -s -X POST '${baseUrl}/v1/leads' \\`,
      `  -H 'X-Api-Key: ${key}' -H 'Content-Type: application/json' \\`,
      `  -d '${JSON.stringify(lead)}'`,
    ].join('\n'),
  };
}

/** Where a person goes next: the IDE, the API reference and the demo company's store finder. */
export function demoLinks(seed: Pick<DemoSeed, 'company'>, baseUrl: string) {
  return {
    start_page: `${baseUrl}/`,
    graphiql: `${baseUrl}/graphql`,
    api_reference: `${baseUrl}/v1/docs`,
    store_finder: `${baseUrl}/locator/${seed.company.id}`,
  };
}

/**
 * The demo company (made by `seedDemo`) when it is still there, found by its admin's e-mail address:
 * the start page (`GET /`) links its store finder.
 */
export async function findDemoCompany(em: EntityManager): Promise<{ id: string; name: string } | null> {
  const admin = PEOPLE.find((p) => p.role === Role.CompanyAdmin)!.email;
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string; name: string }>>(`select c.id, c.name from companies c join users u on u.company_id = c.id where u.email = ? and u.role = 'company_admin' limit 1`, [admin]);
  return rows[0] ?? null;
}

/** The seed as `leadnet seed-demo --json` prints it. */
export function demoJson(seed: DemoSeed, baseUrl: string) {
  const examples = demoExamples(seed, baseUrl);
  return {
    company: seed.company,
    retailer: seed.retailer,
    stores: seed.stores.map((s) => ({ company_retailer_location_id: s.companyRetailerLocationId, retailer_location_id: s.retailerLocationId, name: s.name, city: s.city })),
    products: seed.products,
    leads: seed.leads,
    users: seed.users.map((u) => ({ role: u.role, email: u.email, id: u.id, api_key: u.apiKey })),
    examples: { list_products: examples.listProducts, create_lead: examples.createLead },
    links: demoLinks(seed, baseUrl),
  };
}

/** The text printed after seeding: one key per role and the example requests. */
export function demoBanner(seed: DemoSeed, baseUrl: string): string {
  const examples = demoExamples(seed, baseUrl);
  const links = demoLinks(seed, baseUrl);
  const roleWidth = Math.max(...seed.users.map((u) => u.role.length));
  const emailWidth = Math.max(...seed.users.map((u) => u.email.length));
  return [
    `Demo network seeded: company "${seed.company.name}" (${seed.company.id}), retailer "${seed.retailer.name}" (${seed.retailer.id}),`,
    `stores in ${seed.stores.map((s) => s.city).join(', ')}, and ${seed.leads} leads with their timelines.`,
    '',
    'API keys, one per role (shown only this once; send as the X-Api-Key header):',
    ...seed.users.map((u) => `  ${u.role.padEnd(roleWidth)}  ${u.email.padEnd(emailWidth)}  ${u.apiKey}`),
    '',
    'List products:',
    `  ${examples.listProducts}`,
    '',
    'Create a lead with a quote request:',
    ...examples.createLead.split('\n').map((l) => `  ${l}`),
    '',
    `GraphQL (users, keys and the network, with the platform_operator key): ${baseUrl}/graphql`,
    `API reference (REST /v1, Swagger UI): ${links.api_reference}`,
    `Store finder of ${seed.company.name} (public, no key): ${links.store_finder}`,
    `Start page (these links): ${links.start_page}`,
  ].join('\n');
}
