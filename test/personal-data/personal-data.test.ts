// A person's data through GraphQL (docs/personal-data.md "Access" and "Erasure"): who may export and
// erase (company admins their own company, the operator any; everyone else FORBIDDEN, another company
// NOT_FOUND), hostile selectors (validation, never a 5xx, an unknown person is an empty answer that
// tells another company nothing), the export's content and paging (statements per page do not grow with
// its size), the audit entries, an erasure interrupted between steps that resumes and finishes, and the
// ledger re-applied to a database restored from before the erasure.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import { world, type World } from '../support/network';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { erasureHooks, ledgerEntry, reapplyLedger, resumeErasures, runErasureJob } from '../../src/modules/personal-data/personal-data.service';
import { ledgerPage } from '../../src/modules/personal-data/personal-data.repository';
import { ErasureWorker } from '../../src/modules/personal-data/erasure.worker';

let t: TestApp;
let w: World;
let seq = 0;

const em = (): EntityManager => t.em();
const sql = (text: string, params: unknown[] = []) => em().getConnection().execute(text, params as any[]);

beforeAll(async () => {
  t = await createTestApp({ GEOCODER: 'none' });
  w = await world(em());
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  delete erasureHooks.beforeStep;
});

const EXPORT = 'query($s: PersonSelector!, $first: Int, $after: String) { personalData(selector: $s, first: $first, after: $after) }';
const ERASE = 'mutation($s: PersonSelector!) { erasePersonalData(selector: $s) { id companyId status leadCount stepsDone steps } }';

/** A person with a lead in company A (and `extra` leads sharing the phone, added by updates). */
async function person(extra = 0) {
  const n = ++seq;
  const email = `person${n}.${Date.now()}@pd.example`;
  const phone = `+1 503 555 ${String(1000 + n).slice(-4)}`;
  const admin = w.keys[Role.CompanyAdmin];
  const lead = await api(t, 'post', '/v1/leads', {
    key: admin,
    body: { lead: { name: `Person ${n}`, emails: [{ email }], phone_numbers: [{ phone_number: phone }], lead_activities: [{ type: 'LeadActivity::Note', data: { notes: `note of person ${n}` } }] } },
  });
  expect(lead.status).toBe(201);
  const ids = [lead.body.id as string];
  for (let i = 0; i < extra; i++) {
    const other = await api(t, 'post', '/v1/leads', { key: admin, body: { lead: { name: `Person ${n} again`, emails: [{ email: `other${i}.${email}` }] } } });
    expect(other.status).toBe(201);
    const patched = await api(t, 'patch', `/v1/leads/${other.body.id}`, { key: admin, body: { lead: { phone_numbers: [{ phone_number: phone }] } } });
    expect(patched.status).toBe(200);
    ids.push(other.body.id);
  }
  return { email, phone, leadId: lead.body.id as string, ids: ids.sort() };
}

const code = (res: { body: any }) => res.body.errors?.[0]?.extensions?.code;

describe('who may', () => {
  test('other roles are FORBIDDEN; another company is NOT_FOUND; the operator names the company', async () => {
    const p = await person();
    for (const role of [Role.CompanyTerritoryManager, Role.CompanyRetailerManager, Role.CompanyLocationUser, Role.CompanySalesAssociate, Role.RetailerAdmin, Role.RetailerStoreManager]) {
      for (const s of [{ email: p.email }, { leadId: p.leadId }]) {
        expect({ role, code: code(await gql(t, w.keys[role], EXPORT, { s })) }).toEqual({ role, code: 'FORBIDDEN' });
        expect({ role, code: code(await gql(t, w.keys[role], ERASE, { s })) }).toEqual({ role, code: 'FORBIDDEN' });
      }
    }
    const other = (await f.userWithKey(em(), Role.CompanyAdmin, w.B)).key;
    // Another company's lead, or naming another company: NOT_FOUND, as if neither existed.
    expect(code(await gql(t, other, EXPORT, { s: { leadId: p.leadId } }))).toBe('NOT_FOUND');
    expect(code(await gql(t, other, ERASE, { s: { leadId: p.leadId } }))).toBe('NOT_FOUND');
    expect(code(await gql(t, other, EXPORT, { s: { email: p.email, companyId: w.A.id } }))).toBe('NOT_FOUND');
    expect(code(await gql(t, other, ERASE, { s: { email: p.email, companyId: w.A.id } }))).toBe('NOT_FOUND');
    // By e-mail in its own company: nothing held, the same answer as for nobody at all.
    const theirs = await gql(t, other, EXPORT, { s: { email: p.email } });
    const nobody = await gql(t, other, EXPORT, { s: { email: `nobody.${Date.now()}@pd.example` } });
    for (const res of [theirs, nobody]) {
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.personalData).toMatchObject({ company_id: w.B.id, total_leads: 0, leads: [], page: { has_next_page: false } });
    }
    const erasedNothing = await gql(t, other, ERASE, { s: { email: p.email } });
    expect(erasedNothing.body.data.erasePersonalData).toMatchObject({ companyId: w.B.id, status: 'DONE', leadCount: 0 });
    expect(await sql(`select 1 from emails where lower(email) = ?`, [p.email])).toHaveLength(1);
    // The operator: a company must be named (or a lead's); then any company's.
    const op = w.keys[Role.PlatformOperator];
    expect(code(await gql(t, op, EXPORT, { s: { email: p.email } }))).toBe('BAD_USER_INPUT');
    const byOp = await gql(t, op, EXPORT, { s: { email: p.email, companyId: w.A.id } });
    expect(byOp.body.data.personalData.leads.map((l: any) => l.id)).toEqual([p.leadId]);
    const byLead = await gql(t, op, EXPORT, { s: { leadId: p.leadId } });
    expect(byLead.body.data.personalData.company_id).toBe(w.A.id);
    expect(code(await gql(t, op, EXPORT, { s: { email: p.email, companyId: '00000000-0000-4000-8000-000000000000' } }))).toBe('NOT_FOUND');
    expect(code(await gql(t, null, EXPORT, { s: { email: p.email } }))).toBe('UNAUTHENTICATED');
  });
});

describe('hostile selectors', () => {
  test('malformed selectors are BAD_USER_INPUT, never a 5xx', async () => {
    const admin = w.keys[Role.CompanyAdmin];
    const bad: Array<Record<string, unknown>> = [
      {},
      { email: 'a@b.example', phone: '+15035550100' },
      { email: 'not an e-mail' },
      { email: '' },
      { email: `${'x'.repeat(5000)}@example.com` },
      { email: 'a\u0000b@example.com' },
      { phone: 'call me maybe' },
      { phone: '+1'.repeat(5000) },
      { phone: '5035550100', phoneCountry: 'XX' },
      { phone: '5035550100', phoneCountry: 'U\u0000' },
      { leadId: 'not-a-uuid' },
      { leadId: "1' or '1'='1" },
      { email: 'a@b.example', companyId: 'acme' },
    ];
    for (const s of bad) {
      for (const doc of [EXPORT, ERASE]) {
        const res = await gql(t, admin, doc, { s });
        expect(res.status).toBeLessThan(500);
        expect({ s, code: code(res) }).toEqual({ s, code: 'BAD_USER_INPUT' });
      }
    }
    for (const v of [{ first: 0 }, { first: 201 }, { after: 'nope' }]) {
      const res = await gql(t, admin, EXPORT, { s: { email: 'a@b.example' }, ...v });
      expect(res.status).toBeLessThan(500);
      expect(code(res)).toBe('BAD_USER_INPUT');
    }
    // Wrong types are refused by GraphQL itself, still no 5xx.
    for (const s of [{ email: 42 }, { leadId: ['x'] }, 'x', null]) {
      const res = await gql(t, admin, EXPORT, { s });
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors).toBeDefined();
    }
  });
});

describe('access (export)', () => {
  test('one JSON document: leads with contacts, activities, events; paged by lead, statements not growing with the page', async () => {
    const p = await person(2);
    const admin = w.keys[Role.CompanyAdmin];
    const all = await gql(t, admin, EXPORT, { s: { phone: p.phone } });
    expect(all.body.errors).toBeUndefined();
    const doc = all.body.data.personalData;
    expect(doc).toMatchObject({ company_id: w.A.id, selector: 'phone', total_leads: 3, page: { has_next_page: false } });
    expect(doc.leads.map((l: any) => l.id)).toEqual(p.ids);
    const first = doc.leads.find((l: any) => l.id === p.leadId);
    expect(first.emails.map((e: any) => e.email)).toEqual([p.email]);
    expect(first.phone_numbers[0].phone_number).toMatch(/^\+1503555/);
    expect(first.activities.some((a: any) => a.data?.notes?.startsWith('note of person'))).toBe(true);
    expect(first.events.map((e: any) => e.type)).toContain('lead.created');
    expect(first.audit_entries).toEqual([]);
    // By e-mail: the lead with it and, through the shared phone, the others.
    const byEmail = await gql(t, admin, EXPORT, { s: { email: `  ${p.email.toUpperCase()} ` } });
    expect(byEmail.body.data.personalData.leads.map((l: any) => l.id)).toEqual(p.ids);
    // Pages.
    const page1 = (await gql(t, admin, EXPORT, { s: { leadId: p.leadId }, first: 2 })).body.data.personalData;
    expect(page1.leads.map((l: any) => l.id)).toEqual(p.ids.slice(0, 2));
    expect(page1.page).toMatchObject({ has_next_page: true, end_cursor: p.ids[1] });
    const page2 = (await gql(t, admin, EXPORT, { s: { leadId: p.leadId }, first: 2, after: page1.page.end_cursor })).body.data.personalData;
    expect(page2.leads.map((l: any) => l.id)).toEqual(p.ids.slice(2));
    expect(page2.page.has_next_page).toBe(false);
    // The same statements for one lead as for three.
    const count = async (n: number) => {
      t.resetStatements();
      const res = await gql(t, admin, EXPORT, { s: { email: p.email }, first: n });
      expect(res.body.data.personalData.leads).toHaveLength(n);
      return t.statements.length;
    };
    expect(await count(3)).toBe(await count(1));
    // Each export is in the audit log (no personal data in it).
    const entries = await sql(`select action, details from audit_entries where chain_id = ? and action = 'person.exported'`, [w.A.id]);
    expect(entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(entries)).not.toContain(p.email);
  });
});

describe('erasure', () => {
  test('by lead id: the person\'s leads sharing a contact are erased; a bystander is not; audit and ledger hold ids and hashes only', async () => {
    const p = await person(1);
    const bystander = await person();
    const admin = w.keys[Role.CompanyAdmin];
    const res = await gql(t, admin, ERASE, { s: { leadId: p.ids[1] } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.erasePersonalData).toMatchObject({ companyId: w.A.id, status: 'DONE', leadCount: 2 });
    expect(await sql(`select lead_id from emails where lead_id = any(?::uuid[])`, [`{${p.ids.join(',')}}`])).toHaveLength(0);
    expect(await sql(`select 1 from emails where lower(email) = ?`, [bystander.email])).toHaveLength(1);
    const after = await gql(t, admin, EXPORT, { s: { email: p.email } });
    expect(after.body.data.personalData.total_leads).toBe(0);
    const [entry] = await sql(`select details, target_id from audit_entries where chain_id = ? and action = 'person.erased' and target_id = ?`, [w.A.id, res.body.data.erasePersonalData.id]);
    expect(entry.details).toEqual({ leads: 2, selector: 'lead' });
    const [ledger] = await sql(`select * from erasure_ledger where job_id = ?`, [res.body.data.erasePersonalData.id]);
    expect(ledger.lead_ids.sort()).toEqual(p.ids);
    expect(JSON.stringify(ledger)).not.toContain(p.email);
    expect(ledger.email_hashes).toContain(createHash('sha256').update(p.email).digest('hex'));
    // Erasing again finds nobody by e-mail (the leads have no contacts left) and changes nothing.
    const again = await gql(t, admin, ERASE, { s: { email: p.email } });
    expect(again.body.data.erasePersonalData).toMatchObject({ status: 'DONE', leadCount: 0 });
  });

  test('a job interrupted between steps resumes where it stopped and finishes', async () => {
    const p = await person();
    let thrown = 0;
    erasureHooks.beforeStep = (step) => {
      if (step === 'events' && thrown++ === 0) throw new Error('the process died here');
    };
    const res = await gql(t, w.keys[Role.CompanyAdmin], ERASE, { s: { email: p.email } });
    expect(res.body.errors).toBeUndefined();
    const job = res.body.data.erasePersonalData;
    expect(job).toMatchObject({ status: 'RUNNING', leadCount: 1, stepsDone: ['leads', 'contacts', 'activities', 'outcomes'] });
    // Done steps are done (committed); the rest is not.
    expect(await sql(`select 1 from emails where lead_id = ?`, [p.leadId])).toHaveLength(0);
    expect(await sql(`select 1 from lead_events where lead_id = ? and type = 'lead.erased'`, [p.leadId])).toHaveLength(0);
    const [row] = await sql(`select status, attempts, last_error from erasure_jobs where id = ?`, [job.id]);
    expect(row).toMatchObject({ status: 'running', attempts: 1 });
    expect(row.last_error).toContain('events: the process died here');
    // Two runners at once (a restarted process and the command line): one finishes, the other finds it done.
    const [a, b] = await Promise.all([runErasureJob(t.orm.em as EntityManager, job.id, null), resumeErasures(t.orm.em as EntityManager, null)]);
    expect(a.status).toBe('done');
    expect(b.failed).toBe(0);
    const [done] = await sql(`select status, steps_done from erasure_jobs where id = ?`, [job.id]);
    expect(done.status).toBe('done');
    expect(done.steps_done).toEqual(job.steps);
    expect(await sql(`select 1 from lead_events where lead_id = ? and type = 'lead.erased'`, [p.leadId])).toHaveLength(1);
    expect(await sql(`select 1 from erasure_ledger where job_id = ?`, [job.id])).toHaveLength(1);
    expect((await sql(`select count(*)::int as n from audit_entries where action = 'person.erased' and target_id = ?`, [job.id]))[0].n).toBe(1);
  });

  test('the erasure worker finishes a job a failing step left running, once it has been idle', async () => {
    const p = await person();
    erasureHooks.beforeStep = (step) => {
      if (step === 'contacts') throw new Error('connection lost');
    };
    const res = await gql(t, w.keys[Role.CompanyAdmin], ERASE, { s: { leadId: p.leadId } });
    const job = res.body.data.erasePersonalData;
    expect(job).toMatchObject({ status: 'RUNNING', stepsDone: ['leads'] });
    delete erasureHooks.beforeStep;
    // Not idle for a minute yet: left to whoever runs it now.
    expect(await new ErasureWorker(t.orm).tick()).toEqual({ finished: 0, failed: 0 });
    await sql(`update erasure_jobs set updated_at = now() - interval '2 minutes' where id = ?`, [job.id]);
    const round = await new ErasureWorker(t.orm).tick();
    expect(round.failed).toBe(0);
    expect(round.finished).toBeGreaterThanOrEqual(1);
    expect((await sql(`select status from erasure_jobs where id = ?`, [job.id]))[0].status).toBe('done');
    expect(await sql(`select 1 from emails where lead_id = ?`, [p.leadId])).toHaveLength(0);
  });

  test('the ledger erases the person again in a database restored from before the erasure', async () => {
    const p = await person(1);
    // The backup: the person's rows as they are now.
    const leads = await sql(`select id, name, location_id from leads where id = any(?::uuid[])`, [`{${p.ids.join(',')}}`]);
    const emails = await sql(`select * from emails where lead_id = any(?::uuid[])`, [`{${p.ids.join(',')}}`]);
    const phones = await sql(`select * from phone_numbers where lead_id = any(?::uuid[])`, [`{${p.ids.join(',')}}`]);
    const res = await gql(t, w.keys[Role.CompanyAdmin], ERASE, { s: { phone: p.phone } });
    const jobId = res.body.data.erasePersonalData.id;
    expect(res.body.data.erasePersonalData.status).toBe('DONE');
    const entries = (await ledgerPage(em(), '0', 10_000)).filter((r) => r.job_id === jobId).map(ledgerEntry);
    expect(entries).toHaveLength(1);
    // The restore: the rows come back, and the database knows nothing of the job (it came after the backup).
    for (const l of leads) await sql(`update leads set name = ? where id = ?`, [l.name, l.id]);
    for (const e of emails) await sql(`insert into emails (id, created_at, updated_at, email, lead_id) values (?, ?, ?, ?, ?)`, [e.id, e.created_at, e.updated_at, e.email, e.lead_id]);
    for (const ph of phones) await sql(`insert into phone_numbers (id, created_at, updated_at, phone_number, country_code, lead_id) values (?, ?, ?, ?, ?, ?)`, [ph.id, ph.created_at, ph.updated_at, ph.phone_number, ph.country_code, ph.lead_id]);
    await sql(`delete from erasure_ledger where job_id = ?`, [jobId]);
    await sql(`delete from erasure_jobs where id = ?`, [jobId]);
    expect((await gql(t, w.keys[Role.CompanyAdmin], EXPORT, { s: { email: p.email } })).body.data.personalData.total_leads).toBe(2);
    const report = await reapplyLedger(t.orm.em as EntityManager, entries, null);
    expect(report).toEqual({ reapplied: 1, skipped: 0, leads: 2 });
    expect(await sql(`select 1 from emails where lead_id = any(?::uuid[])`, [`{${p.ids.join(',')}}`])).toHaveLength(0);
    expect(await sql(`select name from leads where id = any(?::uuid[]) and name is not null`, [`{${p.ids.join(',')}}`])).toHaveLength(0);
    // Applied twice, the second time it is skipped.
    expect(await reapplyLedger(t.orm.em as EntityManager, entries, null)).toEqual({ reapplied: 0, skipped: 1, leads: 0 });
  });
});
