import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { runLeadnet } from '../support/cli';
import { createTestDatabase } from '../support/database';
import { ROOT, startChild, stopChildren } from '../support/service';
import { smokeCheck } from '../../scripts/smoke/checks';
import { Client } from 'pg';
import { projectMigrations } from '../../src/db/migration-files';

/**
 * `npm run build` emits JavaScript that production starts with plain node (`npm run start:prod`), on an
 * empty database as a first deployment: the build finds and applies every migration file.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await stopChildren();
  await db.drop();
});

test('the build starts with node (no tsx), finds its documents and schema files, answers and stops on SIGTERM', async () => {
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [path.join(ROOT, 'scripts', 'build.js')], { cwd: ROOT, timeout: 240_000 }, (error, _out, stderr) =>
      error ? reject(new Error(`build failed: ${stderr}`)) : resolve(),
    ),
  );
  expect(fs.existsSync(path.join(ROOT, 'dist', 'src', 'main.js'))).toBe(true);
  expect(fs.existsSync(path.join(ROOT, 'dist', 'src', 'rest', 'common.rest.graphql'))).toBe(true);
  // The pages' files: the store finder's bundle (dist/ has no browser sources), the start-up scripts.
  for (const file of ['locator-widget/widget.bundle.js', 'graphiql/public/ide.js', 'graphiql/public/favicon.svg', 'rest/public/docs.js']) {
    expect([file, fs.existsSync(path.join(ROOT, 'dist', 'src', file))]).toEqual([file, true]);
  }

  const service = startChild({ DATABASE_URL: db.url }, [process.execPath, 'dist/src/main.js']);
  const url = await service.ready();
  expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
  expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ok', database: 'up' });
  expect(fs.readdirSync(path.join(ROOT, 'dist', 'migrations')).filter((f) => f.endsWith('.js'))).toHaveLength(projectMigrations().length);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  const applied = (await client.query('select name from mikro_orm_migrations order by id')).rows.map((r) => r.name);
  await client.end();
  expect(applied).toEqual(projectMigrations().map((m) => m.name));
  const openapi = await fetch(`${url}/v1/openapi.json`);
  expect(openapi.status).toBe(200);
  expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  const graphql = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }),
  });
  // No key: GraphQL answers before parsing (issue 9), which still shows the endpoint is served by the build.
  expect(graphql.status).toBe(401);
  expect(await graphql.json()).toEqual({ errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHENTICATED' } }] });


  // Every page and asset as a person meets them, in Chromium (what `npm run smoke:prod` runs in CI).
  const seeded = await runLeadnet(['seed-demo', '--json'], { DATABASE_URL: db.url }, { cwd: ROOT });
  expect(seeded).toMatchObject({ code: 0 });
  const seed = JSON.parse(seeded.stdout) as { company: { id: string }; users: Array<{ role: string; api_key: string }> };
  const report = await smokeCheck({ url, companyId: seed.company.id, apiKey: seed.users.find((u) => u.role === 'company_admin')!.api_key });
  expect(report.failures).toEqual([]);
  expect(report.passed.length).toBeGreaterThan(30);

  service.child.kill('SIGTERM');
  expect(await service.exited).toMatchObject({ code: 0 });
}, 420_000);
