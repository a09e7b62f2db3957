-- Computing and storing the search text of :n new leads (with emails and phone numbers), several ways, on
-- a migrated leadnet database; everything is rolled back. docs/scaling.md has results.
--   psql postgres://postgres@127.0.0.1:5432/leadnet_scale -v n=20000 -f bench/lead-search-text.sql
\timing on
begin;
insert into companies (name) values ('Text bench brand');
create temp table seed_leads on commit drop as
 select g, gen_random_uuid() as id, gen_random_uuid() as location_id, (select id from companies where name = 'Text bench brand') as company_id,
        timestamptz '2026-01-01' + g * interval '1 minute' as created_at
   from generate_series(1, :n) g;
insert into locations (id, street_line_one, city, province, country, postal_code)
 select location_id, g || ' Main St', 'Portland', 'OR', 'US', '97201' from seed_leads;
insert into leads (id, name, status, owner_company_id, location_id, source_type, created_at, updated_at)
 select id, 'Olivia Garcia' || (g % 100), 'New', company_id, location_id, 'Bench', created_at, created_at from seed_leads;
alter table emails disable trigger leadnet_lead_search_text;
alter table phone_numbers disable trigger leadnet_lead_search_text;
insert into emails (lead_id, email, created_at) select id, 'ogarcia' || g || '@mail.example.test', created_at from seed_leads
 union all select id, 'lead' || g || '@work.example.test', created_at from seed_leads where g % 5 = 0;
insert into phone_numbers (lead_id, phone_number, country_code, created_at) select id, '+1503' || lpad((g % 10000000)::text, 7, '0'), 'US', created_at from seed_leads;
analyze leads; analyze emails; analyze phone_numbers;
savepoint s;
\echo one leadnet_lead_search_text(l) call per lead
update leads l set search_text = leadnet_lead_search_text(l) where l.id in (select id from seed_leads);
rollback to savepoint s;
\echo leadnet_lead_search_text_refresh(ids)
select leadnet_lead_search_text_refresh(array(select id from seed_leads));
rollback to savepoint s;
\echo the texts only, one call per lead
select count(leadnet_lead_search_text(l)) from leads l where l.id in (select id from seed_leads);
\echo leadnet_lead_search_text_refresh(ids), trigram index with a 256 kB pending list
alter index leads_search_text_trgm_index set (fastupdate = on, gin_pending_list_limit = 256);
select leadnet_lead_search_text_refresh(array(select id from seed_leads));
rollback to savepoint s;
\echo leadnet_lead_search_text_refresh(ids), trigram index dropped, then created again
drop index leads_search_text_trgm_index;
select leadnet_lead_search_text_refresh(array(select id from seed_leads));
create index "leads_search_text_trgm_index" on "leads" using gin ("search_text" gin_trgm_ops) with (fastupdate = off);
rollback;
