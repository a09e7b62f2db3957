import { Client } from 'pg';
import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { AppError } from '../../src/errors';
import { TRANSACTION_ATTEMPTS, transactional } from '../../src/db/write';
import { Company } from '../../src/modules/company/company.entity';

let t: TestApp;
let pg: Client;
let key: string;
let productId: string;

/**
 * Issue 40: `transactional()` runs a re-runnable write again when PostgreSQL rolls it back to break a
 * deadlock (40P01) or a serialization conflict (40001), and answers 503 with Retry-After when it loses
 * every time. The conflicts are raised by a trigger of this file's database on the rows it names
 * (`conflict_plan`) when an insert or update gives a row that name: the first `fail_first` attempts fail with `code`. `conflict_attempts`, a sequence,
 * counts the attempts (a sequence is not rolled back with them).
 */
beforeAll(async () => {
  t = await createTestApp();
  pg = new Client({ connectionString: t.config.databaseUrl });
  await pg.connect();
  await pg.query(`create table conflict_plan (name text primary key, fail_first int not null, code text not null)`);
  await pg.query(`create sequence conflict_attempts`);
  await pg.query(`create function raise_planned_conflict() returns trigger language plpgsql as $$
    declare p conflict_plan;
    begin
      select * into p from conflict_plan where name = NEW.name;
      -- A write that names the row (an insert, a rename); not the updates triggers make of it afterwards.
      if found and (TG_OP = 'INSERT' or OLD.name is distinct from NEW.name) and nextval('conflict_attempts') <= p.fail_first then
        raise exception 'planned conflict on %', NEW.name using errcode = p.code;
      end if;
      return NEW;
    end $$`);
  for (const table of ['leads', 'products', 'companies']) {
    await pg.query(`create trigger raise_planned_conflict before insert or update on ${table} for each row execute function raise_planned_conflict()`);
  }
  const em = t.em();
  const company = await f.company(em);
  key = (await f.userWithKey(em, Role.CompanyAdmin, company)).key;
  productId = (await f.product(em, company, { sku: 'CONFLICT-1', name: 'Before' })).id;
});
afterAll(async () => {
  await pg.end();
  await t.close();
});

/** Plans `failFirst` conflicts of `code` on the row named `name`, and starts the attempt count again. */
async function plan(name: string, failFirst: number, code: '40P01' | '40001'): Promise<void> {
  await pg.query(`insert into conflict_plan values ($1, $2, $3)`, [name, failFirst, code]);
  await pg.query(`select setval('conflict_attempts', 1, false)`);
}

async function attempts(): Promise<number> {
  const { rows } = await pg.query(`select case when is_called then last_value else 0 end as n from conflict_attempts`);
  return Number(rows[0].n);
}

async function leadsNamed(name: string): Promise<number> {
  const { rows } = await pg.query(`select count(*)::int as n from leads where name = $1`, [name]);
  return rows[0].n;
}

describe('a re-runnable write (a lead create)', () => {
  test('rolled back by a deadlock twice, it runs again and is stored once', async () => {
    await plan('Deadlocked twice', 2, '40P01');
    const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: 'Deadlocked twice' }) });
    expect(res.status).toBe(201);
    expect(await attempts()).toBe(3);
    expect(await leadsNamed('Deadlocked twice')).toBe(1);
    // Each attempt's children were rolled back with it: one set of them is stored.
    const { rows } = await pg.query(`select (select count(*)::int from emails where lead_id = $1) as emails,
      (select count(*)::int from lead_activities where lead_id = $1) as activities`, [res.body.id]);
    expect(rows[0]).toEqual({ emails: 1, activities: 1 });
  });

  test('losing every attempt to serialization failures, it answers 503 with Retry-After and stores nothing', async () => {
    await plan('Always conflicting', 10, '40001');
    const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: 'Always conflicting' }) });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(/concurrent writes.*retry later/) });
    expect(await attempts()).toBe(TRANSACTION_ATTEMPTS);
    expect(await leadsNamed('Always conflicting')).toBe(0);
  });

  test('over GraphQL: 503 with Retry-After and SERVICE_UNAVAILABLE', async () => {
    await plan('Always conflicting over GraphQL', 10, '40P01');
    const res = await gql(t, key, 'mutation($input: LeadInput!) { createLead(input: $input) { id } }', {
      input: { name: 'Always conflicting over GraphQL', emails: [{ email: 'conflicting.graphql@example.com' }] },
    });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(await attempts()).toBe(TRANSACTION_ATTEMPTS);
  });

  test('an update rolled back once runs again on a fresh load of the lead', async () => {
    const lead = (await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ name: 'To rename' }) })).body;
    await plan('Renamed', 1, '40P01');
    const res = await api(t, 'patch', `/v1/leads/${lead.id}`, { key, body: { lead: { name: 'Renamed', status: 'Contacted' } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', status: 'Contacted' });
    expect(await attempts()).toBe(2);
    const { rows } = await pg.query(`select count(*)::int as n from lead_activities where lead_id = $1 and type = 'LeadActivity::StatusChange'`, [lead.id]);
    expect(rows[0].n).toBe(1);
  });
});

describe('a write that cannot run again (a product update changes the entity loaded before it)', () => {
  test('a deadlock answers 503 with Retry-After after its one attempt, never a 500', async () => {
    await plan('After', 10, '40P01');
    const res = await api(t, 'patch', `/v1/products/${productId}`, { key, body: { product: { name: 'After' } } });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(await attempts()).toBe(1);
    const { rows } = await pg.query(`select name from products where id = $1`, [productId]);
    expect(rows[0].name).toBe('Before');
  });
});

describe('transactional()', () => {
  test('each attempt of a re-runnable unit runs on a fresh fork: no entity of the request or of a failed attempt', async () => {
    const em = t.em();
    const loaded = await em.findOneOrFail(Company, { name: { $ne: null } });
    await plan('Fresh fork', 1, '40001');
    const seen: Array<{ tx: EntityManager; entities: number }> = [];
    await transactional(
      em,
      async (tx) => {
        seen.push({ tx, entities: tx.getUnitOfWork().getIdentityMap().values().length });
        const company = await tx.findOneOrFail(Company, loaded.id);
        company.name = 'Fresh fork';
        await tx.flush();
      },
      {},
      { rerun: true },
    );
    expect(seen.map((s) => s.entities)).toEqual([0, 0]);
    expect(seen[0].tx).not.toBe(seen[1].tx);
    const { rows } = await pg.query(`select name from companies where id = $1`, [loaded.id]);
    expect(rows[0].name).toBe('Fresh fork');
  });

  test('inside an outer transaction a conflict is not run again: it reaches the outer one as it came', async () => {
    const em = t.em();
    await plan('Nested', 10, '40P01');
    let runs = 0;
    const outer = em.transactional((tx) =>
      transactional(tx as EntityManager, async (inner) => {
        runs++;
        await inner.execute(`insert into companies (name) values ('Nested')`);
      }, {}, { rerun: true }),
    );
    await expect(outer).rejects.toBeInstanceOf(DeadlockException);
    expect(runs).toBe(1);
  });

  test('without `rerun` a conflict is one attempt, then the 503 error of the vocabulary', async () => {
    const em = t.em();
    await plan('Once', 10, '40001');
    let runs = 0;
    const write = transactional(em, async (tx) => {
      runs++;
      await tx.execute(`insert into companies (name) values ('Once')`);
    });
    await expect(write).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(write).rejects.toBeInstanceOf(AppError);
    expect(runs).toBe(1);
  });
});
