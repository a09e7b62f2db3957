// Seeds the leads of a perf database (after the stores of leadnet's bench/store-locator.ts seed, which
// creates the company 'Bench brand' with its store-locator-eligible CRLs across North America).
//
//   company A = 'Bench brand'   PERF_LEADS (100,000) leads, each assigned to one of its CRLs
//   company B = 'Perf brand B'  PERF_LEADS_B (5,000) leads over its own small network (1 retailer, 20 stores)
//
// Every lead: a name, a status, a location (city, province, country, postal code, coordinates), 1 email
// (1 in 5 a second), 1 phone number (valid NANP, E.164), 2 activities (a QuoteRequest, then a Note one hour
// later), an assignee CRL. Deterministic (hashtext picks), so two databases seeded with the same sizes hold
// the same data.
//
// A bulk load (docs/scaling.md, "Loading many leads"), in one transaction, every table in one statement:
// - the rows are written under `session_replication_role = replica`: no trigger fires, foreign keys
//   included. Every value a trigger would compute row by row is computed in the statement instead: the
//   search text (the bytes of `leadnet_lead_search_text(l)`, from the values being inserted), the
//   assignee's scope keys (`leadnet_lead_scope_keys`), an activity's copy of its lead's owner and assignee
//   keys (`leadnet_lead_activity_owner`); the kept lead counts are counted again after the load; no webhook
//   event is recorded (a seed is not two million `lead.created` events); the references are checked by
//   one anti-join per foreign key of the new rows;
// - the secondary indexes of leads, contacts and activities (the trigram index among them) are dropped and
//   created again after the load (`PERF_KEEP_INDEXES=1` keeps them), one sorted build each instead of a
//   million scattered inserts;
// - then the checks: the stored search text, scope keys and activity keys of a sample of the new leads (every
//   one up to 10,000 leads) equal what the trigger functions compute, and 1,000 of them written again
//   through the normal path (every trigger on, in a savepoint rolled back afterwards) equal their
//   bulk-loaded originals, kept count included; a difference rolls everything back.
//
// Idempotent: skipped when company A already has PERF_LEADS leads (PERF_RESEED=1 seeds again).
// `--drop` only removes the seeded leads. Prints the time of each step.
import pg from 'pg';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/perf_leadnet';
const LEADS = Number(process.env.PERF_LEADS ?? 100_000);
const LEADS_B = Number(process.env.PERF_LEADS_B ?? 5_000);
const KEEP_INDEXES = process.env.PERF_KEEP_INDEXES === '1';
const CHECK_SAMPLE = Number(process.env.PERF_CHECK_SAMPLE ?? 10_000);
/** Leads written again through the normal path (every trigger on) and compared with their bulk-loaded originals. */
const NORMAL_SAMPLE = Number(process.env.PERF_NORMAL_SAMPLE ?? 1_000);

const FIRST_NAMES = ['Olivia', 'Liam', 'Emma', 'Noah', 'Amélie', 'Lucas', 'Sofía', 'Mateo', 'Chloé', 'Ethan', 'Zoë', 'Mason', 'Isabella', 'James', 'Mia', 'Benjamin', 'Charlotte', 'Élodie', 'Henry', 'Harper'];
const LAST_NAMES = ['Smith', 'Johnson', 'Garcia', 'Brown', 'Martínez', 'Tremblay', 'Nguyen', 'Wilson', 'Anderson', 'Gagnon', 'Lee', 'Roy', 'Müller', 'Taylor', 'Côté', 'Thomas', 'Moore', 'Jackson', 'Martin', 'White'];
// city, province, country, postal code, latitude, longitude
const CITIES = [
  ['Portland', 'OR', 'US', '97205', 45.5202, -122.6742],
  ['Seattle', 'WA', 'US', '98101', 47.6114, -122.3305],
  ['Denver', 'CO', 'US', '80202', 39.7491, -104.9946],
  ['Austin', 'TX', 'US', '78701', 30.2713, -97.7426],
  ['Chicago', 'IL', 'US', '60601', 41.8858, -87.6229],
  ['Montréal', 'QC', 'CA', 'H2X 1Y4', 45.5117, -73.5683],
  ['Toronto', 'ON', 'CA', 'M5V 2T6', 43.6426, -79.3871],
  ['Vancouver', 'BC', 'CA', 'V6B 1A1', 49.2827, -123.1207],
];
const STATUSES = ['New', 'New', 'New', 'Contacted', 'Contacted', 'Qualified', 'Won', 'Lost'];

const INDEXED = ['leads', 'emails', 'phone_numbers', 'lead_activities'];

const client = new pg.Client({ connectionString: URL });
let last = Date.now();
const steps = [];
async function step(name, sql, params) {
  const r = await client.query(sql, params);
  const now = Date.now();
  steps.push(`${name} ${((now - last) / 1000).toFixed(1)} s`);
  last = now;
  return r;
}

/** Start over: the leads of both companies, their contacts, activities and locations. */
async function dropLeads() {
  // Row by row through the cascades and the search-text triggers this takes minutes: delete the children
  // explicitly with triggers (and so FK actions) off for this transaction.
  await client.query(`create temp table old_leads on commit drop as
    select l.id, l.location_id from leads l join companies c on c.id = l.owner_company_id where c.name in ('Bench brand', 'Perf brand B')`);
  // The leads' funnel facts with their triggers on (the funnel's rollups lose them too), then the rest with them off.
  await client.query(`delete from lead_funnel_facts where lead_id in (select id from old_leads)`);
  await client.query(`set local session_replication_role = replica`);
  for (const table of ['lead_activities', 'emails', 'phone_numbers', 'lead_events']) {
    await client.query(`delete from ${table} where lead_id in (select id from old_leads)`);
  }
  await client.query(`delete from leads where id in (select id from old_leads)`);
  await client.query(`delete from locations where id in (select location_id from old_leads)`);
  await client.query(`set local session_replication_role = origin`);
  await client.query(RECOUNT);
}

/**
 * The kept lead and lead activity counts (Migration20261124170000_lead_owner_counts,
 * Migration20261202100000_lead_assignee_counts,
 * Migration20261130100000_lead_day_counts, Migration20261129110000_lead_activity_owner_counts), counted
 * again from the rows.
 */
const RECOUNT = `delete from lead_counts;
  insert into lead_counts (field, within_key, key, slot, n)
  select k.field, k.within_key, k.key, 0, count(*) from leads l cross join lateral leadnet_lead_count_keys(l) k group by 1, 2, 3;
  delete from lead_day_counts;
  insert into lead_day_counts (field, key, day, slot, n)
  select 'owner_company_id', owner_company_id, (created_at at time zone 'UTC')::date, 0, count(*) from leads where owner_company_id is not null group by 2, 3
  union all
  select 'owner_retailer_id', owner_retailer_id, (created_at at time zone 'UTC')::date, 0, count(*) from leads where owner_retailer_id is not null group by 2, 3;
  delete from lead_activity_counts;
  insert into lead_activity_counts (field, key, slot, n)
  select 'owner_company_id', owner_company_id, 0, count(*) from lead_activities where owner_company_id is not null group by 1, 2
  union all
  select 'owner_retailer_id', owner_retailer_id, 0, count(*) from lead_activities where owner_retailer_id is not null group by 1, 2`;

await client.connect();
try {
  const { rows: [a] } = await client.query(`select id from companies where name = 'Bench brand'`);
  if (!a) throw new Error("no company 'Bench brand': run leadnet's bench:store-locator seed first");
  const { rows: [{ n }] } = await client.query('select count(*)::int as n from leads where owner_company_id = $1', [a.id]);
  if (process.argv.includes('--drop')) {
    // Only remove the leads (run.sh, before the stores are seeded again: leads hold their CRLs).
    await client.query('begin');
    await dropLeads();
    await client.query('commit');
    console.log('dropped the seeded leads');
    process.exit(0);
  }
  if (n === LEADS && !process.env.PERF_RESEED) {
    console.log(`leads already seeded (${n} for company A); PERF_RESEED=1 to seed again`);
    process.exit(0);
  }
  const started = Date.now();
  await client.query('begin');
  await client.query(`set local maintenance_work_mem = '512MB'`);
  await client.query(`set local work_mem = '256MB'`);
  await dropLeads();
  steps.push(`drop old leads ${((Date.now() - last) / 1000).toFixed(1)} s`);
  last = Date.now();
  // Company B and its network are created once (its users and keys stay across reseeds).
  let { rows: [b] } = await client.query(`select id from companies where name = 'Perf brand B'`);
  if (!b) {
    ({ rows: [b] } = await client.query(`insert into companies (name) values ('Perf brand B') returning id`));
    const { rows: [rb] } = await client.query(`insert into retailers (name) values ('Perf dealer B') returning id`);
    const { rows: [crb] } = await client.query(`insert into company_retailers (company_id, retailer_id, name) values ($1, $2, 'Perf dealer B') returning id`, [b.id, rb.id]);
    await client.query(`insert into retailer_locations (retailer_id, name) select $1, 'Perf dealer B store ' || g from generate_series(1, 20) g`, [rb.id]);
    await client.query(
      `insert into company_retailer_locations (company_id, company_retailer_id, retailer_location_id)
       select $1, $2, id from retailer_locations where retailer_id = $3`,
      [b.id, crb.id, rb.id],
    );
  }

  const { rows: indexes } = KEEP_INDEXES
    ? { rows: [] }
    : await client.query(
        `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as def
           from pg_index i
          where i.indrelid = any($1::regclass[])
            and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
        [INDEXED],
      );
  for (const i of indexes) await client.query(`drop index ${i.name}`);
  await client.query(`set local session_replication_role = replica`);
  steps.push(`${indexes.length} indexes dropped ${((Date.now() - last) / 1000).toFixed(1)} s`);
  last = Date.now();

  // One row per lead to create, with every value its rows get: company, number g (distinct across companies),
  // assignee and its scope keys, ids, name, status, city, contacts.
  await step(
    'leads to create',
    `create temp table seed_leads on commit drop as
     with crl_a as (select id, (row_number() over (order by id) - 1)::int as n from company_retailer_locations where company_id = $1),
          crl_b as (select id, (row_number() over (order by id) - 1)::int as n from company_retailer_locations where company_id = $2),
          ga as (select g, $1::uuid as company_id, abs(hashtext('s' || g)) % (select count(*) from crl_a) as pick from generate_series(1, $3::int) g),
          gb as (select g, $2::uuid as company_id, abs(hashtext('s' || g)) % (select count(*) from crl_b) as pick from generate_series($3::int + 1, $3::int + $4::int) g),
          picked as (select ga.g, ga.company_id, crl_a.id as assignee_id from ga join crl_a on crl_a.n = ga.pick
                     union all
                     select gb.g, gb.company_id, crl_b.id from gb join crl_b on crl_b.n = gb.pick),
          s as (select p.*, gen_random_uuid() as id, gen_random_uuid() as location_id,
                       1 + abs(hashtext('f' || p.g)) % array_length($5::text[], 1) as f, 1 + abs(hashtext('l' || p.g)) % array_length($6::text[], 1) as l,
                       abs(hashtext('c' || p.g)) % ${CITIES.length} as c,
                       ($7::text[])[1 + abs(hashtext('t' || p.g)) % array_length($7::text[], 1)] as status,
                       -- both companies' leads spread over the same 300 days (B's interleaved with A's, not all newer)
                       case when p.g <= $3::int then timestamptz '2026-01-01' + p.g * (interval '300 days' / $3::int)
                            else timestamptz '2026-01-01' + (p.g - $3::int) * (interval '300 days' / $4::int) + interval '17 minutes' end as created_at,
                       -- valid NANP numbers, distinct per lead: area code, exchange 200-999, line
                       '+1' || (array['503','971','206','425','303','512','312','604'])[1 + (p.g / 8000000) % 8]
                            || (200 + p.g % 800)::text || lpad(((p.g / 800) % 10000)::text, 4, '0') as phone
                  from picked p)
     select s.*, ($5::text[])[s.f] || ' ' || ($6::text[])[s.l] as name,
            lower(unaccent(left(($5::text[])[s.f], 1) || ($6::text[])[s.l])) || s.g || '@mail.example.test' as email1,
            case when s.g % 5 = 0 then 'lead' || s.g || '@work.example.test' end as email2,
            a.company_id as assignee_company_id, coalesce(a.territory_id, a_cr.territory_id) as assignee_territory_id,
            a.company_retailer_id as assignee_company_retailer_id, a_rl.retailer_id as assignee_retailer_id, a.retailer_location_id as assignee_retailer_location_id
       from s
       join company_retailer_locations a on a.id = s.assignee_id
       left join company_retailers a_cr on a_cr.id = a.company_retailer_id
       left join retailer_locations a_rl on a_rl.id = a.retailer_location_id`,
    [a.id, b.id, LEADS, LEADS_B, FIRST_NAMES, LAST_NAMES, STATUSES],
  );
  await client.query(
    `create temp table seed_cities on commit drop as
     select (n - 1)::int as n, city, province, country, postal, lat, lng
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::float8[]) with ordinality as x(city, province, country, postal, lat, lng, n)`,
    [0, 1, 2, 3, 4, 5].map((i) => CITIES.map((c) => c[i])),
  );
  await step(
    'locations',
    `insert into locations (id, street_line_one, city, province, country, postal_code, latitude, longitude, coordinates_source, created_at, updated_at)
     select s.location_id, s.g || ' Main St', c.city, c.province, c.country, c.postal, c.lat, c.lng, 'geocoder', s.created_at, s.created_at
       from seed_leads s join seed_cities c on c.n = s.c`,
  );
  // The search text as leadnet_lead_search_text(l) computes it: name, status, emails in insertion order,
  // every tail of 4+ digits of the phone number, city, province, country, postal code.
  await step(
    'leads',
    `insert into leads (id, name, status, owner_company_id, assignee_id, assignee_company_id, assignee_territory_id, assignee_company_retailer_id,
                        assignee_retailer_id, assignee_retailer_location_id, location_id, source_type, created_at, updated_at, search_text)
     select s.id, s.name, s.status, s.company_id, s.assignee_id, s.assignee_company_id, s.assignee_territory_id, s.assignee_company_retailer_id,
            s.assignee_retailer_id, s.assignee_retailer_location_id, s.location_id, 'Bench', s.created_at, s.created_at,
            leadnet_search_text(s.name || ' ' || s.status || ' ' || s.email1 || coalesce(' ' || s.email2, '') || ' '
              || (select string_agg(substr(d.digits, i), ' ' order by i) from (select regexp_replace(s.phone, '\\D', '', 'g') as digits) d
                   cross join lateral generate_series(1, length(d.digits) - 3) i) || ' '
              || c.city || ' ' || c.province || ' ' || c.country || ' ' || c.postal)
       from seed_leads s join seed_cities c on c.n = s.c`,
  );
  await step(
    'emails',
    `insert into emails (lead_id, email, created_at, updated_at)
     select id, email, created_at, updated_at from (
       select s.id, s.email1 as email, s.created_at, s.created_at as updated_at, s.g, 1 as k from seed_leads s
       union all
       select s.id, s.email2, s.created_at + interval '1 second', s.created_at + interval '1 second', s.g, 2 from seed_leads s where s.email2 is not null
     ) e order by k, g`,
  );
  await step(
    'phone numbers',
    `insert into phone_numbers (lead_id, phone_number, country_code, created_at, updated_at)
     select s.id, s.phone, 'US', s.created_at, s.created_at from seed_leads s order by s.g`,
  );
  await step(
    'activities',
    `insert into lead_activities (lead_id, type, data, created_at, updated_at, owner_company_id, assignee_id, assignee_company_id, assignee_territory_id,
                                  assignee_company_retailer_id, assignee_retailer_id, assignee_retailer_location_id)
     select s.id, x.type, x.data, x.at, x.at, s.company_id, s.assignee_id, s.assignee_company_id, s.assignee_territory_id,
            s.assignee_company_retailer_id, s.assignee_retailer_id, s.assignee_retailer_location_id
       from seed_leads s
       cross join lateral (values
         (1, 'LeadActivity::QuoteRequest',
          jsonb_build_object('products', jsonb_build_array(jsonb_build_object('sku', 'SKU-' || (1 + s.g % 200), 'name', 'Product ' || (1 + s.g % 200), 'quantity', 1 + s.g % 3)),
                             'notes', 'Call after 5pm'),
          s.created_at),
         (2, 'LeadActivity::Note', '{"message": "followed up"}'::jsonb, s.created_at + interval '1 hour')) x(k, type, data, at)
      order by x.k, s.g`,
  );
  for (const i of indexes) await client.query(i.def);
  steps.push(`${indexes.length} indexes created ${((Date.now() - last) / 1000).toFixed(1)} s`);
  last = Date.now();
  await client.query(`set local session_replication_role = origin`);
  await step('kept counts', RECOUNT);
  // The funnel's facts of the new leads (and its rollups from them), as the leads' triggers would have written them.
  await step('funnel facts', `select leadnet_funnel_facts_refresh(array(select id from seed_leads))`);
  // The foreign keys of the new rows, which the replica role did not check.
  const { rows: [refs] } = await step(
    'references',
    // One hash anti-join per foreign key (an OR of NOT EXISTS would probe the indexes once per row).
    `select (select count(*) from seed_leads s join leads l on l.id = s.id left join company_retailer_locations a on a.id = l.assignee_id where a.id is null)
          + (select count(*) from seed_leads s join leads l on l.id = s.id left join locations x on x.id = l.location_id where x.id is null)
          + (select count(*) from seed_leads s join leads l on l.id = s.id left join companies c on c.id = l.owner_company_id where c.id is null)
          + (select count(*) from emails e join seed_leads s on s.id = e.lead_id left join leads l on l.id = e.lead_id where l.id is null)
          + (select count(*) from phone_numbers p join seed_leads s on s.id = p.lead_id left join leads l on l.id = p.lead_id where l.id is null)
          + (select count(*) from lead_activities x join seed_leads s on s.id = x.lead_id left join leads l on l.id = x.lead_id where l.id is null) as broken`,
  );
  if (Number(refs.broken)) throw new Error(`seed check failed: ${refs.broken} rows reference a missing row`);

  // The check: what the triggers would have stored, on a sample of the new leads.
  const { rows: [check] } = await step(
    'check',
    `with sample as (select id from seed_leads order by hashtext(id::text) limit $1),
          keys as (
            select l.id, l.search_text is distinct from leadnet_lead_search_text(l) as text_differs,
                   (l.assignee_company_id, l.assignee_territory_id, l.assignee_company_retailer_id, l.assignee_retailer_id, l.assignee_retailer_location_id)
                     is distinct from (a.company_id, coalesce(a.territory_id, a_cr.territory_id), a.company_retailer_id, a_rl.retailer_id, a.retailer_location_id) as keys_differ
              from leads l join sample on sample.id = l.id
              left join company_retailer_locations a on a.id = l.assignee_id
              left join company_retailers a_cr on a_cr.id = a.company_retailer_id
              left join retailer_locations a_rl on a_rl.id = a.retailer_location_id)
     select count(*)::int as n, count(*) filter (where text_differs)::int as texts, count(*) filter (where keys_differ)::int as keys,
            (select count(*)::int from lead_activities x join leads l on l.id = x.lead_id join sample on sample.id = l.id
              where (x.owner_company_id, x.owner_retailer_id, x.assignee_id, x.assignee_company_id, x.assignee_territory_id, x.assignee_company_retailer_id, x.assignee_retailer_id, x.assignee_retailer_location_id)
                    is distinct from (l.owner_company_id, l.owner_retailer_id, l.assignee_id, l.assignee_company_id, l.assignee_territory_id, l.assignee_company_retailer_id, l.assignee_retailer_id, l.assignee_retailer_location_id)) as activities
       from keys`,
    [CHECK_SAMPLE],
  );
  if (check.texts || check.keys || check.activities) {
    throw new Error(`seed check failed on ${check.n} leads: ${check.texts} search texts, ${check.keys} scope keys, ${check.activities} activities differ from what the triggers compute`);
  }
  // The normal path: copies of a sample of the new leads written again with every trigger on (as the API
  // and the imports write: the lead, then its emails, phone numbers and activities, one statement each),
  // in a savepoint rolled back afterwards. Their search text, scope keys and activity keys must equal the
  // bulk-loaded rows', byte for byte; every kept lead count must equal its leads counted, and company A's
  // day and activity counts theirs.
  await client.query('savepoint normal_path');
  await client.query(
    `create temp table normal_path on commit drop as
     select s.id as bulk_id, gen_random_uuid() as id, l.location_id as bulk_location_id, gen_random_uuid() as location_id
       from seed_leads s join leads l on l.id = s.id order by hashtext('normal' || s.id::text) limit $1`,
    [NORMAL_SAMPLE],
  );
  await client.query(
    `insert into locations (id, street_line_one, city, province, country, postal_code, latitude, longitude, coordinates_source, created_at, updated_at)
     select n.location_id, x.street_line_one, x.city, x.province, x.country, x.postal_code, x.latitude, x.longitude, x.coordinates_source, x.created_at, x.updated_at
       from normal_path n join locations x on x.id = n.bulk_location_id`,
  );
  await client.query(
    `insert into leads (id, name, status, owner_company_id, assignee_id, location_id, source_type, created_at, updated_at)
     select n.id, l.name, l.status, l.owner_company_id, l.assignee_id, n.location_id, l.source_type, l.created_at, l.updated_at
       from normal_path n join leads l on l.id = n.bulk_id`,
  );
  await client.query(
    `insert into emails (lead_id, email, created_at, updated_at)
     select n.id, e.email, e.created_at, e.updated_at from normal_path n join emails e on e.lead_id = n.bulk_id order by e.seq`,
  );
  await client.query(
    `insert into phone_numbers (lead_id, phone_number, country_code, created_at, updated_at)
     select n.id, p.phone_number, p.country_code, p.created_at, p.updated_at from normal_path n join phone_numbers p on p.lead_id = n.bulk_id order by p.seq`,
  );
  await client.query(
    `insert into lead_activities (lead_id, type, data, created_at, updated_at)
     select n.id, x.type, x.data, x.created_at, x.updated_at from normal_path n join lead_activities x on x.lead_id = n.bulk_id order by x.created_at`,
  );
  const { rows: [normal] } = await step(
    'normal-path check',
    `select count(*)::int as n,
            count(*) filter (where (w.search_text, w.assignee_company_id, w.assignee_territory_id, w.assignee_company_retailer_id, w.assignee_retailer_id, w.assignee_retailer_location_id)
                               is distinct from (b.search_text, b.assignee_company_id, b.assignee_territory_id, b.assignee_company_retailer_id, b.assignee_retailer_id, b.assignee_retailer_location_id))::int as leads,
            (select count(*)::int from normal_path n
              where (select array_agg(row(x.type, x.data, x.owner_company_id, x.owner_retailer_id, x.assignee_id, x.assignee_company_id, x.assignee_territory_id,
                                          x.assignee_company_retailer_id, x.assignee_retailer_id, x.assignee_retailer_location_id)::text order by x.type)
                       from lead_activities x where x.lead_id = n.id)
                    is distinct from
                    (select array_agg(row(x.type, x.data, x.owner_company_id, x.owner_retailer_id, x.assignee_id, x.assignee_company_id, x.assignee_territory_id,
                                          x.assignee_company_retailer_id, x.assignee_retailer_id, x.assignee_retailer_location_id)::text order by x.type)
                       from lead_activities x where x.lead_id = n.bulk_id)) as activities,
            (select count(*)::int from (
               (select field, within_key, key, sum(n) as n from lead_counts group by 1, 2, 3 having sum(n) <> 0
                except
                select k.field, k.within_key, k.key, count(*) from leads l cross join lateral leadnet_lead_count_keys(l) k group by 1, 2, 3)
               union all
               (select k.field, k.within_key, k.key, count(*) from leads l cross join lateral leadnet_lead_count_keys(l) k group by 1, 2, 3
                except
                select field, within_key, key, sum(n) as n from lead_counts group by 1, 2, 3)) d)
            + (select count(*)::int from (
               select field, key, day, sum(n) as n from lead_day_counts group by 1, 2, 3
               except
               select 'owner_company_id', owner_company_id, (created_at at time zone 'UTC')::date, count(*) from leads where owner_company_id = $1 group by 1, 2, 3) d
              where d.key = $1)
            + (select count(*)::int from (
               select field, key, sum(n) as n from lead_activity_counts group by 1, 2
               except
               select 'owner_company_id', owner_company_id, count(*) from lead_activities where owner_company_id = $1 group by 1, 2) d
              where d.key = $1) as counts
       from normal_path n join leads w on w.id = n.id join leads b on b.id = n.bulk_id`,
    [a.id],
  );
  await client.query('rollback to savepoint normal_path');
  if (normal.leads || normal.activities || normal.counts) {
    throw new Error(`seed check failed: ${normal.leads} of ${normal.n} leads, ${normal.activities} activities or ${normal.counts} kept counts differ from the same leads written with the triggers on`);
  }
  await step('commit', 'commit');
  const seeded = (Date.now() - started) / 1000;
  await step('vacuum analyze', 'vacuum analyze');
  console.log(`  steps: ${steps.join('; ')}`);
  console.log(`  checked ${check.n} leads: search text, scope keys and activity keys as the triggers compute them`);
  console.log(`  checked ${normal.n} leads against copies written with every trigger on: search text, scope keys, activities, kept count`);
  console.log(`seeded ${LEADS} leads (company A) + ${LEADS_B} leads (company B) in ${seeded.toFixed(1)} s (+ vacuum analyze ${((Date.now() - started) / 1000 - seeded).toFixed(1)} s)`);
} catch (e) {
  await client.query('rollback').catch(() => undefined);
  throw e;
} finally {
  await client.end();
}
