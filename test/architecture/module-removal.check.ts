// Run by test/architecture/module-removal.test.ts inside a copy of the project from which one module was
// deleted: node --import tsx test/architecture/module-removal.check.ts (DATABASE_URL: a migrated database).
// Builds the app of that copy on the database, with every background switch on, seeds the demo network,
// asks it what the test checks and prints the answers as one line of JSON.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../src/config';
import { initAppOrm } from '../../mikro-orm.config';
import { modules } from '../../src/modules';
import { seedDemo } from '../../src/modules/demo/demo-seed';
import { Role } from '../../src/modules/user/role';
import { buildApp } from '../../src/app';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const config = parseConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'true', NOTIFICATION_WORKER: 'true', RATE_LIMIT_API: '0', RATE_LIMIT_API_PER_IP: '0' });
  const orm = await initAppOrm(url);
  const seed = (await seedDemo(orm.em.fork(), modules))!;
  const key = seed.users.find((u) => u.role === Role.CompanyAdmin)!.apiKey;
  const app = await buildApp(config, orm);
  const server = app.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const closeSubscriptions = app.attach(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = (path: string, accept = 'application/json') => fetch(`${base}${path}`, { headers: { 'X-Api-Key': key, Accept: accept } });
  const gql = async (query: string) => {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ query }) });
    return { status: res.status, body: await res.json() };
  };
  try {
    const leads = await get('/v1/leads?opts[per_page]=2');
    const leadsBody = (await leads.json()) as { leads: unknown[]; meta: { total: number } };
    const home = (await (await get('/')).json()) as { demo_company: { id: string } | null };
    const ide = await (await get('/graphql', 'text/html')).text();
    const out = {
      modules: modules.map((m) => m.name),
      seededLeads: seed.leads,
      restLeads: { status: leads.status, page: leadsBody.leads?.length, total: leadsBody.meta?.total },
      graphqlProducts: await gql('{ products(perPage: 1) { meta { total } nodes { sku } } }'),
      graphqlRemoved: await gql('{ leadResponseStats { week } }'),
      homeDemoCompany: home.demo_company?.id === seed.company.id,
      ideNamesRemoved: ide.includes('leadResponseStats'),
      subscriptions: app.subscriptions(),
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await closeSubscriptions();
    await new Promise((resolve) => server.close(resolve));
    await app.stop();
    await orm.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
