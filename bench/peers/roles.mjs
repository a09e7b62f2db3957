// One user of every role around company A ('Bench brand') and its first dealer, created once, and a
// fresh API key for each per run (printed as JSON: { role: plain key }, plus `company_b_admin`).
//
//   company_admin               company A
//   company_territory_manager   territory 'Perf north' of company A: the company retailers of dealers 1-3
//   company_retailer_manager    the company retailers of dealers 1-2
//   company_location_user       5 CRLs of company A
//   company_sales_associate     5 other CRLs of company A
//   retailer_admin              'Bench dealer 1'
//   retailer_store_manager      2 retailer locations of 'Bench dealer 1'
//   company_b_admin             company B ('Perf brand B', created by seed-leads.mjs)
//
// Run before seed-leads.mjs (the territory is given to the company retailers before the leads exist, so
// the seed writes the leads' territory keys itself) and again after it (company B's admin, fresh keys).
// Keys are stored as leadnet stores them (sha256 of the plain key, src/auth/api-keys.ts).
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/perf_leadnet';
const client = new pg.Client({ connectionString: URL });
await client.connect();
const one = async (sql, params) => (await client.query(sql, params)).rows[0];
try {
  await client.query('begin');
  const a = await one(`select id from companies where name = 'Bench brand'`);
  if (!a) throw new Error("no company 'Bench brand': seed the stores first");
  const dealer = (n) => one(`select id from retailers where name = $1`, [`Bench dealer ${n}`]);
  const d1 = await dealer(1);

  let territory = await one(`select id from territories where company_id = $1 and name = 'Perf north'`, [a.id]);
  if (!territory) {
    territory = await one(`insert into territories (company_id, name) values ($1, 'Perf north') returning id`, [a.id]);
    await client.query(
      `update company_retailers set territory_id = $1
        where company_id = $2 and retailer_id in (select id from retailers where name in ('Bench dealer 1', 'Bench dealer 2', 'Bench dealer 3'))`,
      [territory.id, a.id],
    );
  }
  const user = async (email, role, org, assign) => {
    let u = await one(`select id from users where email = $1`, [email]);
    if (!u) {
      u = await one(`insert into users (email, name, role, company_id, retailer_id, territory_id) values ($1, $2, $3, $4, $5, $6) returning id`, [
        email, `Perf ${role}`, role, org.company ?? null, org.retailer ?? null, org.territory ?? null,
      ]);
      if (assign) await assign(u.id);
    }
    const plain = 'lnk_' + randomBytes(32).toString('base64url');
    await client.query(`insert into api_keys (user_id, prefix, key_hash, label) values ($1, $2, $3, 'perf')`, [
      u.id, plain.slice(0, 10), createHash('sha256').update(plain, 'utf8').digest('hex'),
    ]);
    return plain;
  };
  const crls = `select id from company_retailer_locations where company_id = $2 order by id`;
  const keys = {
    company_admin: await user('admin-a@perf.test', 'company_admin', { company: a.id }),
    company_territory_manager: await user('territory-a@perf.test', 'company_territory_manager', { company: a.id, territory: territory.id }),
    company_retailer_manager: await user('cr-manager-a@perf.test', 'company_retailer_manager', { company: a.id },
      (id) => client.query(`insert into user_company_retailers (user_id, company_retailer_id)
        select $1, id from company_retailers where company_id = $2 and retailer_id in (select id from retailers where name in ('Bench dealer 1', 'Bench dealer 2'))`, [id, a.id])),
    company_location_user: await user('location-a@perf.test', 'company_location_user', { company: a.id },
      (id) => client.query(`insert into user_company_retailer_locations (user_id, company_retailer_location_id) select $1, id from (${crls} limit 5) x`, [id, a.id])),
    company_sales_associate: await user('sales-a@perf.test', 'company_sales_associate', { company: a.id },
      (id) => client.query(`insert into user_company_retailer_locations (user_id, company_retailer_location_id) select $1, id from (${crls} offset 5 limit 5) x`, [id, a.id])),
    retailer_admin: await user('admin-dealer1@perf.test', 'retailer_admin', { retailer: d1.id }),
    retailer_store_manager: await user('store-dealer1@perf.test', 'retailer_store_manager', { retailer: d1.id },
      (id) => client.query(`insert into user_retailer_locations (user_id, retailer_location_id) select $1, id from retailer_locations where retailer_id = $2 order by id limit 2`, [id, d1.id])),
  };
  const b = await one(`select id from companies where name = 'Perf brand B'`);
  if (b) keys.company_b_admin = await user('admin-b@perf.test', 'company_admin', { company: b.id });
  await client.query('commit');
  console.log(JSON.stringify({ company_a: a.id, company_b: b?.id ?? null, dealer_1: d1.id, territory: territory.id, keys }));
} catch (e) {
  await client.query('rollback').catch(() => undefined);
  throw e;
} finally {
  await client.end();
}
