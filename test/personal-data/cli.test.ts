// `leadnet personal-data` as an operator runs it (docs/personal-data.md, docs/operations.md): export a
// person's document, erase them, keep the ledger apart, restore a backup taken before the erasure (a
// real copy of the database) and re-apply the ledger to it: the person is gone from the restored
// database too, and applying it again changes nothing. An erasure whose process is killed between steps
// resumes. Malformed selectors and unknown leads are refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase } from '../support/database';
import { withDatabase } from '../support/global-setup';
import { spawn } from 'node:child_process';
import { LEADNET_BIN, leadnetEnv, runLeadnet } from '../support/cli';
import { STEP_NAMES } from '../../src/modules/personal-data/personal-data.service';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let backupUrl: string;
let dir: string;
const company = randomUUID();
const otherCompany = randomUUID();
const leadId = randomUUID();
const otherLead = randomUUID();
const EMAIL = 'cli.person@pd-cli.example';

async function sql(url: string, text: string, params: unknown[] = []) {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-pd-'));
  db = await createTestDatabase();
  await sql(db.url, `insert into companies (id, created_at, updated_at, name) values ($1, now(), now(), 'Cli Co'), ($2, now(), now(), 'Other Co')`, [company, otherCompany]);
  await sql(db.url, `insert into leads (id, created_at, updated_at, name, status, owner_company_id) values ($1, now(), now(), 'Ophelia Cliperson', 'New', $2), ($3, now(), now(), 'Somebody Else', 'New', $4)`, [leadId, company, otherLead, otherCompany]);
  await sql(db.url, `insert into emails (id, created_at, updated_at, email, lead_id) values (gen_random_uuid(), now(), now(), $1, $2)`, [EMAIL, leadId]);
  await sql(db.url, `insert into phone_numbers (id, created_at, updated_at, phone_number, country_code, lead_id) values (gen_random_uuid(), now(), now(), '+15035550188', 'US', $1)`, [leadId]);
  // The backup, taken before the erasure: a copy of the whole database.
  const server = process.env.LEADNET_TEST_SERVER_URL!;
  const backup = `${new URL(db.url).pathname.slice(1)}_backup`;
  await sql(withDatabase(server, 'postgres'), `create database ${backup} template ${new URL(db.url).pathname.slice(1)}`);
  backupUrl = withDatabase(server, backup);
});
afterAll(async () => {
  await sql(withDatabase(process.env.LEADNET_TEST_SERVER_URL!, 'postgres'), `drop database if exists ${new URL(backupUrl).pathname.slice(1)} with (force)`);
  await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const leadnet = (args: string[], url = db.url) => runLeadnet(['personal-data', ...args], { DATABASE_URL: url });

test('export, erase, keep the ledger, restore the backup, re-apply: the person is gone from the restored database', async () => {
  const exported = await leadnet(['export', '--company', company, '--email', ' CLI.Person@pd-cli.example ']);
  expect(exported.code).toBe(0);
  const doc = JSON.parse(exported.stdout);
  expect(doc).toMatchObject({ company_id: company, total_leads: 1 });
  expect(doc.leads.map((l: any) => l.id)).toEqual([leadId]);
  expect(doc.leads[0].emails[0].email).toBe(EMAIL);
  const file = path.join(dir, 'export.json');
  const toFile = await leadnet(['export', '--lead', leadId, '--out', file]);
  expect(toFile.code).toBe(0);
  expect(JSON.parse(fs.readFileSync(file, 'utf8')).leads[0].name).toBe('Ophelia Cliperson');

  const erased = await leadnet(['erase', '--company', company, '--phone', '(503) 555-0188', '--json']);
  expect(erased.code).toBe(0);
  expect(JSON.parse(erased.stdout)).toMatchObject({ status: 'done', lead_count: 1 });
  expect(await sql(db.url, `select name from leads where id = $1`, [leadId])).toEqual([{ name: null }]);
  expect(await sql(db.url, `select 1 from emails where lead_id = $1`, [leadId])).toHaveLength(0);

  const ledger = path.join(dir, 'ledger.jsonl');
  expect((await leadnet(['ledger', '--out', ledger])).code).toBe(0);
  const lines = fs.readFileSync(ledger, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain(EMAIL);
  expect(lines[0]).not.toContain('Ophelia');

  // The restored database still holds the person, and knows of no erasure...
  expect(await sql(backupUrl, `select 1 from erasure_jobs`)).toHaveLength(0);
  expect(await sql(backupUrl, `select email from emails where lead_id = $1`, [leadId])).toEqual([{ email: EMAIL }]);
  const reapplied = await leadnet(['reapply-erasures', '--ledger', ledger, '--json'], backupUrl);
  expect(reapplied.code).toBe(0);
  expect(JSON.parse(reapplied.stdout)).toEqual({ reapplied: 1, skipped: 0, leads: 1 });
  // ...and no longer.
  expect(await sql(backupUrl, `select 1 from emails where lead_id = $1`, [leadId])).toHaveLength(0);
  expect(await sql(backupUrl, `select name from leads where id = $1`, [leadId])).toEqual([{ name: null }]);
  expect(await sql(backupUrl, `select name from leads where id = $1`, [otherLead])).toEqual([{ name: 'Somebody Else' }]);
  const again = await leadnet(['reapply-erasures', '--ledger', ledger, '--json'], backupUrl);
  expect(JSON.parse(again.stdout)).toEqual({ reapplied: 0, skipped: 1, leads: 0 });
}, 300_000);

test('an erasure whose process is killed (kill -9) in the middle of its job resumes with resume-erasures and finishes', async () => {
  // A person with many leads (one phone number shared by all), so each step takes long enough to be
  // caught half-way: the process is killed from outside once a step is done and before the last.
  const N = 1_000;
  const PHONE = '+15035550177';
  await sql(
    db.url,
    `with l as (insert into leads (id, created_at, updated_at, name, status, owner_company_id)
                select gen_random_uuid(), now(), now(), 'Killian Midstep ' || i, 'New', $1 from generate_series(1, $2) i returning id),
          p as (insert into phone_numbers (id, created_at, updated_at, phone_number, country_code, lead_id) select gen_random_uuid(), now(), now(), $3, 'US', id from l)
     insert into lead_activities (lead_id, type, data) select id, 'LeadActivity::Note', '{"notes": "Killian called"}' from l`,
    [company, N, PHONE],
  );
  const child = spawn(process.execPath, [LEADNET_BIN, 'personal-data', 'erase', '--company', company, '--phone', PHONE], { env: leadnetEnv({ DATABASE_URL: db.url }), stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  const watcher = new Client({ connectionString: db.url });
  await watcher.connect();
  let job: { id: string; status: string; steps_done: string[] } | undefined;
  try {
    for (let i = 0; i < 12_000 && child.exitCode === null; i++) {
      [job] = (await watcher.query(`select id, status, steps_done from erasure_jobs where company_id = $1 and selector = 'phone' order by created_at desc limit 1`, [company])).rows;
      if (job?.status === 'running' && job.steps_done.length >= 1) {
        child.kill('SIGKILL');
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await exited).toBe('SIGKILL');
    [job] = (await watcher.query(`select id, status, steps_done from erasure_jobs where id = $1`, [job!.id])).rows;
  } finally {
    await watcher.end();
  }
  // Running, with the steps before the kill done, in order, and their work committed with them.
  expect(job!.status).toBe('running');
  expect(job!.steps_done.length).toBeGreaterThanOrEqual(1);
  expect(job!.steps_done.length).toBeLessThan(STEP_NAMES.length);
  expect(job!.steps_done).toEqual(STEP_NAMES.slice(0, job!.steps_done.length));
  const phones = Number((await sql(db.url, `select count(*) from phone_numbers where phone_number = $1`, [PHONE]))[0].count);
  expect(phones).toBe(job!.steps_done.includes('contacts') ? 0 : N);
  const resumed = await leadnet(['resume-erasures', '--json']);
  expect(resumed.code).toBe(0);
  expect(JSON.parse(resumed.stdout)).toEqual({ finished: 1, failed: 0 });
  expect(await sql(db.url, `select status, steps_done from erasure_jobs where id = $1`, [job!.id])).toEqual([{ status: 'done', steps_done: STEP_NAMES }]);
  expect(await sql(db.url, `select 1 from phone_numbers where phone_number = $1`, [PHONE])).toHaveLength(0);
  expect(await sql(db.url, `select count(*)::int as n from leads where owner_company_id = $1 and name like 'Killian Midstep %'`, [company])).toEqual([{ n: 0 }]);
  expect(await sql(db.url, `select count(*)::int as n from lead_activities a join leads l on l.id = a.lead_id where l.owner_company_id = $1 and a.data is not null`, [company])).toEqual([{ n: 0 }]);
  expect(await sql(db.url, `select 1 from erasure_ledger where job_id = $1`, [job!.id])).toHaveLength(1);
}, 300_000);

test('malformed selectors, unknown leads and unreadable ledgers are refused with one line, no stack', async () => {
  for (const args of [
    ['erase', '--company', company],
    ['erase', '--company', company, '--email', 'not-an-email'],
    ['export', '--email', 'a@b.example'],
    ['erase', '--lead', randomUUID()],
    ['erase', '--company', company, '--lead', otherLead],
    ['reapply-erasures', '--ledger', path.join(dir, 'missing.jsonl')],
  ]) {
    const run = await leadnet(args);
    expect({ args, code: run.code }).toEqual({ args, code: 1 });
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }
  const garbled = path.join(dir, 'garbled.jsonl');
  fs.writeFileSync(garbled, '{"job_id": 1}\nnot json\n');
  const run = await leadnet(['reapply-erasures', '--ledger', garbled]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('garbled.jsonl:1');
  // The other company's person is untouched by all of it.
  expect(await sql(db.url, `select name from leads where id = $1`, [otherLead])).toEqual([{ name: 'Somebody Else' }]);
}, 300_000);
