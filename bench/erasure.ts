/**
 * Erasure benchmark (`npm run bench:erasure`, docs/personal-data.md "Erasure", docs/benchmarks.md).
 * Not a test: on the database `BENCH_DATABASE_URL` (migrated on start) it seeds one company with
 * BENCH_LEADS (100,000) leads, each with an e-mail, a phone number, a note and the events its triggers
 * write (set-based; skipped when the company is there already), then BENCH_ROUNDS (10) times adds a
 * person with 3 leads (a shared e-mail and phone, notes, a location, events) and erases them as
 * `erasePersonalData` does (find by e-mail through the duplicate indexes, start the job, run its steps,
 * ledger and audit entry), and exports one beforehand. Prints each round's milliseconds and the median
 * and maximum. Use a database of its own: `createdb -h 127.0.0.1 -U postgres leadnet_erasure_bench`.
 */
import 'reflect-metadata';
import os from 'node:os';
import type { EntityManager } from '@mikro-orm/postgresql';
import { initAppOrm } from '../mikro-orm.config';
import { CLI_ACTOR } from '../src/modules/audit/audit.service';
import { checkSelector, exportPage, hashIdentity, personLeads, runErasureJob, startErasure } from '../src/modules/personal-data/personal-data.service';

const URL = process.env.BENCH_DATABASE_URL;
const LEADS = Number(process.env.BENCH_LEADS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const COMPANY = '0e7a5e00-0000-4000-8000-000000000001';

async function main(): Promise<void> {
  if (!URL) throw new Error('Set BENCH_DATABASE_URL to a database of its own (createdb leadnet_erasure_bench).');
  const orm = await initAppOrm(URL, { debug: false });
  const em = orm.em.fork() as EntityManager;
  const conn = em.getConnection();
  try {
    const [{ n }] = await conn.execute(`select count(*)::int as n from leads where owner_company_id = ?`, [COMPANY]);
    const [{ a }] = await conn.execute(`select count(*)::int as a from lead_activities where owner_company_id = ?`, [COMPANY]);
    if (n < LEADS || a < LEADS) {
      const started = Date.now();
      await conn.execute(`insert into companies (id, created_at, updated_at, name) values (?, now(), now(), 'Erasure bench brand') on conflict do nothing`, [COMPANY]);
      await conn.execute(
        `insert into leads (id, created_at, updated_at, name, status, owner_company_id)
         select gen_random_uuid(), now() - make_interval(mins => g), now(), 'Bench person ' || g, 'New', ? from generate_series(1, ?) g`,
        [COMPANY, Math.max(0, LEADS - n)],
      );
      await conn.execute(
        `insert into emails (email, lead_id) select 'bench' || row_number() over () || '@bench.example', l.id from leads l
          where l.owner_company_id = ? and not exists (select 1 from emails e where e.lead_id = l.id)`,
        [COMPANY],
      );
      await conn.execute(
        `insert into phone_numbers (phone_number, country_code, lead_id) select '+1971' || lpad((row_number() over ())::text, 7, '0'), 'US', l.id from leads l
          where l.owner_company_id = ? and not exists (select 1 from phone_numbers p where p.lead_id = l.id)`,
        [COMPANY],
      );
      // The notes with triggers off (their per-statement fan-out takes minutes on 100,000 rows); the
      // columns the triggers would set are set here.
      await em.transactional(async (tx) => {
        const c = tx.getConnection();
        await c.execute(`set local session_replication_role = replica`, [], 'run', tx.getTransactionContext());
        await c.execute(
          `insert into lead_activities (lead_id, type, data, seq, owner_company_id)
           select l.id, 'LeadActivity::Note', jsonb_build_object('notes', 'called ' || l.name), 1, l.owner_company_id from leads l
            where l.owner_company_id = ? and not exists (select 1 from lead_activities a where a.lead_id = l.id)`,
          [COMPANY],
          'run',
          tx.getTransactionContext(),
        );
      });
      await conn.execute(`analyze`);
      console.log(`seeded up to ${LEADS} leads with their e-mails, phones and notes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const [{ total }] = await conn.execute(`select count(*)::int as total from leads`);
    const times: number[] = [];
    let exportMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const email = `target${round}.${Date.now()}@bench.example`;
      const phone = `+1503555${String(1000 + round).slice(-4)}`;
      for (let i = 0; i < 3; i++) {
        const [loc] = await conn.execute(`insert into locations (street_line_one, city, country) values (?, 'Portland', 'US') returning id`, [`${i} Bench St`]);
        const [lead] = await conn.execute(`insert into leads (name, status, owner_company_id, location_id) values (?, 'New', ?, ?) returning id`, [`Target ${round}`, COMPANY, loc.id]);
        await conn.execute(`insert into emails (email, lead_id) values (?, ?)`, [i === 2 ? `other.${email}` : email, lead.id]);
        await conn.execute(`insert into phone_numbers (phone_number, country_code, lead_id) values (?, 'US', ?)`, [phone, lead.id]);
        await conn.execute(`insert into lead_activities (lead_id, type, data) values (?, 'LeadActivity::Note', ?)`, [lead.id, JSON.stringify({ notes: `about ${email}` })]);
      }
      const person = checkSelector({ companyId: COMPANY, email });
      if (round === 0) {
        const t0 = performance.now();
        const doc = await exportPage(orm.em as EntityManager, COMPANY, person, 200, null, CLI_ACTOR);
        exportMs = performance.now() - t0;
        if ((doc.leads as unknown[]).length !== 3) throw new Error(`the export found ${(doc.leads as unknown[]).length} leads, not 3`);
      }
      const t0 = performance.now();
      const fork = orm.em.fork() as EntityManager;
      const ids = await personLeads(fork, COMPANY, person);
      const job = await startErasure(fork, COMPANY, person.kind, ids, { emails: [hashIdentity(email)], phones: [] }, 'bench');
      const done = await runErasureJob(orm.em as EntityManager, job.id, CLI_ACTOR);
      const ms = performance.now() - t0;
      if (done.status !== 'done' || done.lead_ids.length !== 3) throw new Error(`round ${round}: ${done.status} with ${done.lead_ids.length} leads`);
      times.push(ms);
      console.log(`round ${round + 1}: erased 3 leads in ${ms.toFixed(1)} ms`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `\n${total} leads in the database; erasing one person (3 leads): median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms over ${ROUNDS} rounds; ` +
        `export ${exportMs.toFixed(1)} ms (${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)})`,
    );
  } finally {
    await orm.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
