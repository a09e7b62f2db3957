import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { AppModule } from '../module';
import { Role } from '../user/role';
import { PEOPLE } from './demo-network';
import { DemoSeedContext, orderDemoParts, type DemoSeed } from './demo-part';
import { companyOfAdmin, lockDemoSeed, quietNotifications } from './demo.queries';

export type { DemoSeed } from './demo-part';

/**
 * Whether `npm start` seeds the demo network (when the database is still empty): only on the embedded
 * database and unless `SEED_DEMO=false`. A `DATABASE_URL` start never seeds.
 */
export function demoSeedWanted(config: Pick<Config, 'databaseUrl' | 'seedDemo'>): boolean {
  return !config.databaseUrl && config.seedDemo;
}

/**
 * Seeds a small demo network (one company, one retailer with four stores, products, stock, a few hundred
 * leads with timelines and one user of every role with an API key) in one transaction: each module of
 * `modules` adds its part (`AppModule.demo`, `<resource>.demo.ts`), after the parts it reads. Returns
 * null, changing nothing, when the database already has a company (or one of the demo users' emails):
 * the seed only ever runs on an empty database.
 */
export async function seedDemo(em: EntityManager, modules: readonly AppModule[]): Promise<DemoSeed | null> {
  const parts = orderDemoParts(modules.flatMap((m) => m.demo ?? []));
  return em.transactional(async (tx) => {
    // Two processes starting at once on the same empty database seed it once.
    await lockDemoSeed(tx);
    for (const part of parts) if (await part.present?.(tx)) return null;
    // Its few hundred assignments are not news to anyone: none is mailed, even with SMTP configured at the first start.
    await quietNotifications(tx as EntityManager);

    const demo = new DemoSeedContext(tx as EntityManager, {});
    for (const part of parts) demo.run(part);
    await tx.flush();
    const { company, retailer, stores, products, leads, users } = demo.report;
    if (!company || !retailer || !stores || !products || leads === undefined || !users) {
      throw new Error('demo seed: a module that makes part of the demo is missing from the list');
    }
    return { company, retailer, stores, products, leads, users };
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
  return companyOfAdmin(em, admin);
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

/** Where a start's demo seed keeps its keys: `demo-keys.json` in the data directory (`DATA_DIR`). */
export function demoKeysFile(dataDir: string): string {
  return path.join(dataDir, 'demo-keys.json');
}

/**
 * Writes the seed as `leadnet seed-demo --json` prints it, API keys included, to `demoKeysFile(dataDir)`
 * and returns its path. The file is created readable and writable by its owner only (mode 0600, from its
 * creation on): one an earlier seed left is removed first, and the exclusive create refuses to follow a
 * file or link put there in between.
 */
export function writeDemoKeys(dataDir: string, seed: DemoSeed, baseUrl: string): string {
  const file = demoKeysFile(dataDir);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, `${JSON.stringify(demoJson(seed, baseUrl), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}

/** What the start-up log says of the seed off a terminal, where lines reach log collectors: no key, the file that holds them. */
export function demoLogSummary(seed: DemoSeed, baseUrl: string, keysFile: string | null) {
  return {
    company: seed.company,
    retailer: seed.retailer,
    stores: seed.stores.length,
    leads: seed.leads,
    users: seed.users.map((u) => ({ role: u.role, email: u.email })),
    keys_file: keysFile,
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
