import path from 'node:path';
import fs from 'node:fs';
import net from 'node:net';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { runLeadnet, type CliRun } from '../support/cli';
import { Role } from '../../src/modules/user/role';
import { isListening } from '../../src/cli/database';
import { relocatedClusters, ROOT_HOME } from '../../src/db/embedded';
import { privateDir, removePrivateDirs, ROOT } from '../support/service';

/**
 * The real `leadnet` bin as a child process on the test database. Each start costs about a second, so
 * every case here checks as much as one run can show.
 */

let t: TestApp;

function leadnet(args: string[], env: Record<string, string | undefined> = { DATABASE_URL: t.config.databaseUrl }): Promise<CliRun> {
  return runLeadnet(args, env, { timeout: 60_000 });
}

const json = (run: CliRun) => JSON.parse(run.stdout);
const jsonError = (run: CliRun) => JSON.parse(run.stderr).error;

let net1: Awaited<ReturnType<typeof f.network>>;
let other: Awaited<ReturnType<typeof f.network>>;

beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  net1 = await f.network(em);
  other = await f.network(em);
});
afterAll(() => t.close());

test('users create --json prints the user with its assignments; users list --json filters by company', async () => {
  const run = await leadnet([
    'users', 'create', '--email', 'Lou@Example.TEST', '--name', 'Lou', '--role', 'company_location_user',
    '--company', net1.company.id, '--crl', net1.storeNorth.id, net1.storeSouth.id, '--json',
  ]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  const user = json(run);
  expect(user).toEqual({
    id: expect.any(String),
    email: 'lou@example.test',
    name: 'Lou',
    role: 'company_location_user',
    company_id: net1.company.id,
    retailer_id: null,
    territory_id: null,
    company_retailer_ids: [],
    company_retailer_location_ids: [net1.storeNorth.id, net1.storeSouth.id].sort(),
    retailer_location_ids: [],
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });

  const list = await leadnet(['users', 'list', '--company', net1.company.id, '--json']);
  expect(list.code).toBe(0);
  expect(json(list)).toEqual({ users: [user], meta: { total: 1, page: 1, per_page: 100, total_pages: 1 } });
});

test('keys generate prints a key once that works on the API; keys list shows no secret; keys revoke makes it 401', async () => {
  const { user } = await f.userWithKey(t.em(), Role.CompanyAdmin, net1.company);

  const generated = await leadnet(['keys', 'generate', '--user', user.email.toUpperCase(), '--label', 'CRM', '--json']);
  expect(generated).toMatchObject({ code: 0, stderr: '' });
  const { api_key: apiKey, plain_key: plainKey } = json(generated);
  expect(apiKey).toEqual({
    id: expect.any(String),
    user_id: user.id,
    prefix: plainKey.slice(0, apiKey.prefix.length),
    label: 'CRM',
    created_at: expect.any(String),
    last_used_at: null,
    revoked_at: null,
  });
  expect((await api(t, 'get', '/v1/products', { key: plainKey })).status).toBe(200);

  const listed = await leadnet(['keys', 'list', '--user', user.id, '--json']);
  expect(listed.code).toBe(0);
  const keys = json(listed).api_keys;
  expect(keys).toHaveLength(2);
  expect(keys[0]).toMatchObject({ id: apiKey.id, label: 'CRM', last_used_at: expect.any(String) });
  expect(Object.keys(keys[0]).sort()).toEqual(['created_at', 'id', 'label', 'last_used_at', 'prefix', 'revoked_at', 'user_id']);
  expect(listed.stdout).not.toContain(plainKey);

  const revoked = await leadnet(['keys', 'revoke', apiKey.id, '--json']);
  expect(revoked.code).toBe(0);
  expect(json(revoked).api_key).toMatchObject({ id: apiKey.id, revoked_at: expect.any(String) });
  expect((await api(t, 'get', '/v1/products', { key: plainKey })).status).toBe(401);
});

test('bootstrap creates a platform operator whose key works on GraphQL; a second run reuses it', async () => {
  const first = await leadnet(['bootstrap', '--email', 'Ops@Example.TEST', '--name', 'Ops', '--json']);
  expect(first).toMatchObject({ code: 0, stderr: '' });
  const out = json(first);
  expect(out).toMatchObject({ created: true, user: { email: 'ops@example.test', role: 'platform_operator', company_id: null }, api_key: { label: 'bootstrap' } });
  const res = await gql(t, out.plain_key, `{ users(perPage: 500) { meta { total } } }`);
  expect(res.body.data.users.meta.total).toBeGreaterThan(0);

  const second = await leadnet(['bootstrap', '--email', 'ops@example.test']);
  expect(second.code).toBe(0);
  expect(second.stdout).toMatch(/^Platform operator exists: ops@example\.test/);
  expect(second.stdout).toMatch(/shown only this once/);
});

test('bad input exits 1 with a clear message on stderr and nothing on stdout', async () => {
  // One process at a time: six starts at once on a busy two-core machine outlast a test's minute.
  const runs: CliRun[] = [];
  for (const args of [
    ['users', 'create', '--email', 'x@example.test', '--role', 'boss'],
    ['keys', 'revoke', 'not-a-uuid', '--json'],
    ['keys', 'generate', '--user', 'nobody@example.test'],
    ['keys', 'list', '--user', 'nobody'],
    ['users', 'create', '--email', 'tm@example.test', '--role', 'company_territory_manager', '--company', net1.company.id, '--territory', other.north.id, '--json'],
    ['seed-demo', '--json'],
  ]) runs.push(await leadnet(args));
  const [badRole, badUuid, unknownUser, notAUser, foreign, notEmpty] = runs;
  for (const run of [badRole, badUuid, unknownUser, notAUser, foreign, notEmpty]) {
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
  }
  expect(badRole.stderr).toMatch(/argument 'boss' is invalid\. Allowed choices are company_admin, /);
  expect(jsonError(badUuid)).toEqual({ code: 'USAGE', message: expect.stringContaining('"not-a-uuid" is not a UUID') });
  expect(unknownUser.stderr).toBe("leadnet: Couldn't find User with 'email'=nobody@example.test\n");
  expect(notAUser.stderr).toMatch(/"nobody" is neither a user id \(UUID\) nor an email/);
  expect(jsonError(foreign)).toEqual({
    code: 'BAD_USER_INPUT',
    message: "Validation failed: Territory is not a territory of the user's company",
    details: [{ field: 'territory_id', code: 'invalid', message: "is not a territory of the user's company", full_message: "Territory is not a territory of the user's company" }],
  });
  expect(jsonError(notEmpty)).toEqual({ code: 'NOT_EMPTY', message: expect.stringContaining('only seeds an empty database') });
}, 180_000);

test('without DATABASE_URL a command starts the embedded cluster under DATA_DIR and stops it afterwards, leaving nothing behind in the default places', async () => {
  const dataDir = privateDir('leadnet-cli-');
  const defaultDataDir = path.join(ROOT, '.data');
  const hadDefaultDataDir = fs.existsSync(defaultDataDir);
  const port = await freePort();
  try {
    const env = { DATABASE_URL: undefined, DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(port) };
    const run = await leadnet(['migrate', '--json'], env);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(json(run).applied).toContain('Migration20261122000000_initial');
    // As root from a 0700 directory (mkdtemp) the cluster lives where postgres can reach it (pg.location).
    const pointer = path.join(dataDir, 'pg.location');
    const cluster = fs.existsSync(pointer) ? fs.readFileSync(pointer, 'utf8').trim() : path.join(dataDir, 'pg');
    expect(fs.existsSync(path.join(cluster, 'PG_VERSION'))).toBe(true);
    expect(await isListening(port)).toBe(false);
  } finally {
    removePrivateDirs();
  }
  // Neither the project's default DATA_DIR nor root's relocated clusters keep anything of this run.
  expect(fs.existsSync(defaultDataDir)).toBe(hadDefaultDataDir);
  expect(relocatedClusters().filter((c) => c.dataDir === dataDir)).toEqual([]);
  const clusters = path.join(ROOT_HOME, 'clusters');
  const origins = fs.existsSync(clusters) ? fs.readdirSync(clusters).filter((n) => n.endsWith('.origin')) : [];
  expect(origins.filter((n) => fs.readFileSync(path.join(clusters, n), 'utf8').trim() === dataDir)).toEqual([]);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
