// `leadnet audit list|verify` (docs/personal-data.md "Audit log", docs/operations.md): the real bin on the
// test database. Verify catches an entry changed by an UPDATE and one removed by a DELETE made directly
// in SQL by a superuser (who can switch the append-only trigger off), and exits 2.
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { Client } from 'pg';
import { createTestApp, type TestApp } from '../support/app';
import { runLeadnet, type CliRun } from '../support/cli';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { audit, systemActor } from '../../src/modules/audit/audit.service';

let t: TestApp;
let dir: string;
jest.setTimeout(300_000);

function leadnet(args: string[]): Promise<CliRun> {
  return runLeadnet(args, { DATABASE_URL: t.config.databaseUrl });
}

beforeAll(async () => {
  t = await createTestApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-audit-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** SQL as a database superuser would send it: the append-only trigger off for this session only. */
async function asSuperuser(sql: string, values: unknown[]): Promise<void> {
  const c = new Client({ connectionString: t.config.databaseUrl });
  await c.connect();
  try {
    await c.query(`set session_replication_role = replica`);
    await c.query(sql, values);
  } finally {
    await c.end();
  }
}

const fill = async (companyId: string, n: number) => {
  for (let i = 1; i <= n; i++) await audit.record(t.em(), systemActor('test'), 'import.run', { type: 'company', id: companyId, companyId }, { i });
};

test('the command line is audited as the operator; list reads a chain; verify passes an intact log and exits 2 on an UPDATE or a DELETE made in SQL', async () => {
  const intact = await f.company(t.em());
  const changed = await f.company(t.em());
  const removed = await f.company(t.em());
  const truncated = await f.company(t.em());

  // Commands that change keys, users and data are recorded as the operator at the command line.
  const csv = path.join(dir, 'products.csv');
  fs.writeFileSync(csv, 'sku,name\nA-1,Anvil\n');
  expect((await leadnet(['import', 'products', csv, '--company', intact.id])).code).toBe(0);
  const made = await leadnet(['users', 'create', '--email', 'someone@example.test', '--role', Role.CompanyAdmin, '--company', intact.id, '--json']);
  expect(made.code).toBe(0);
  const user = JSON.parse(made.stdout);
  const key = await leadnet(['keys', 'generate', '--user', user.id, '--json']);
  expect(key.code).toBe(0);
  const { api_key, plain_key } = JSON.parse(key.stdout);
  expect((await leadnet(['keys', 'revoke', api_key.id])).code).toBe(0);
  const exported = await leadnet(['export', 'leads', '--company', intact.id]);
  expect(exported.code).toBe(0);

  const list = await leadnet(['audit', 'list', '--company', intact.id, '--json']);
  expect(list).toMatchObject({ code: 0, stderr: '' });
  const page = JSON.parse(list.stdout);
  expect(page.entries.map((e: any) => [e.sequence, e.action, e.actor_type, e.actor_id])).toEqual([
    [5, 'export.run', 'operator', null],
    [4, 'api_key.revoked', 'operator', null],
    [3, 'api_key.created', 'operator', null],
    [2, 'user.created', 'operator', null],
    [1, 'import.run', 'operator', null],
  ]);
  expect(page.entries[4].details).toMatchObject({ kind: 'products', source: 'file', created: 1 });
  expect(list.stdout).not.toContain('someone@example.test');
  expect(list.stdout).not.toContain(plain_key);
  const text = await leadnet(['audit', 'list', '--company', intact.id, '--first', '2', '--action', 'api_key.created,api_key.revoked']);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^SEQ +AT +ACTOR +ACTION/);
  expect(text.stdout.split('\n').filter((l) => /api_key\./.test(l))).toHaveLength(2);
  expect((await leadnet(['audit', 'list', '--company', '00000000-0000-0000-0000-000000000009'])).code).toBe(1);

  await fill(changed.id, 6);
  await fill(removed.id, 6);
  await fill(truncated.id, 3);

  const clean = await leadnet(['audit', 'verify', '--json']);
  expect(clean).toMatchObject({ code: 0, stderr: '' });
  const before = JSON.parse(clean.stdout);
  expect(before.ok).toBe(true);
  expect(before.chains.find((c: any) => c.company_id === changed.id)).toEqual({
    company_id: changed.id,
    entries: 6,
    last_sequence: 6,
    last_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    ok: true,
    problem: null,
  });

  // Without a superuser's powers, the database refuses.
  await expect(t.em().execute(`update audit_entries set details = '{"i": 99}' where chain_id = ? and seq = 3`, [changed.id])).rejects.toThrow(/append-only/);

  // A superuser changes entry 3 of one chain, deletes entry 4 of another and the last entry of a third.
  await asSuperuser(`update audit_entries set details = '{"i": 99}' where chain_id = $1 and seq = 3`, [changed.id]);
  await asSuperuser(`delete from audit_entries where chain_id = $1 and seq = 4`, [removed.id]);
  await asSuperuser(`delete from audit_entries where chain_id = $1 and seq = 3`, [truncated.id]);

  const all = await leadnet(['audit', 'verify']);
  expect(all.code).toBe(2);
  expect(all.stdout).toContain(`TAMPERED company ${changed.id}: entry 3 (import.run) was changed: its content does not match its hash`);
  expect(all.stdout).toContain(`TAMPERED company ${removed.id}: entry 4 was removed (the chain goes from 3 to 5)`);
  expect(all.stdout).toContain(`TAMPERED company ${truncated.id}: entry 3 was removed from the end`);
  expect(all.stdout).toContain(`ok       company ${intact.id}: 5 entries`);
  expect(all.stderr).toContain('the audit log was tampered with in 3 chains');

  const one = await leadnet(['audit', 'verify', '--company', removed.id, '--json']);
  expect(one.code).toBe(2);
  expect(JSON.parse(one.stdout)).toEqual({
    ok: false,
    chains: [{ company_id: removed.id, entries: 4, last_sequence: 3, last_hash: expect.stringMatching(/^[0-9a-f]{64}$/), ok: false, problem: { kind: 'removed', sequence: 4, entry_id: null, message: 'entry 4 was removed (the chain goes from 3 to 5)' } }],
  });
  expect(JSON.parse(one.stderr).error.code).toBe('AUDIT_TAMPERED');
  expect((await leadnet(['audit', 'verify', '--company', intact.id])).code).toBe(0);

  // An entry whose link to its predecessor was rewritten (an entry put in from elsewhere) is a broken link.
  const relinked = await f.company(t.em());
  await fill(relinked.id, 3);
  await asSuperuser(`update audit_entries set prev_hash = repeat('a', 64) where chain_id = $1 and seq = 2`, [relinked.id]);
  const link = await leadnet(['audit', 'verify', '--company', relinked.id, '--json']);
  expect(link.code).toBe(2);
  expect(JSON.parse(link.stdout).chains[0].problem).toMatchObject({ kind: 'broken_link', sequence: 2 });
});
