import { Migration } from '@mikro-orm/migrations';

/** The same expression as lead.search.ts's `assignee_company_beyond_owner_id` (its indexes must match it). */
const BEYOND_COMPANY = '(case when assignee_company_id is distinct from owner_company_id then assignee_company_id end)';
const REASONS = ['too_far', 'out_of_stock', 'no_capacity', 'not_our_products', 'duplicate', 'other'];
/** A group's figures, summed (every one is 0 in a row with no lead and no offer). */
export const FUNNEL_FIGURES = ['leads', 'contacted', 'won', 'lost', 'amount', 'offered', 'accepted', 'declined', 'expired', ...REASONS.map((r) => `declined_${r}`)];

const LEAD_FACT = ['owner_company_id', 'assignee_company_id', 'assignee_id', 'assignee_territory_id', 'assignee_retailer_id', 'created_at',
  'created_week', 'source_type', 'contacted', 'won', 'lost', 'currency', 'amount_minor'];
/** A lead's funnel fact from the lead `l`, its timer `t` and its outcome `o`, in LEAD_FACT order (lead id first). */
const LEAD_FACT_OF = `l.id, l.owner_company_id, l.assignee_company_id, l.assignee_id, l.assignee_territory_id, l.assignee_retailer_id, l.created_at,
  date_trunc('week', l.created_at at time zone 'UTC')::date, l.source_type, t.answered_at is not null,
  coalesce(o.result = 'won', false), coalesce(o.result = 'lost', false),
  case when o.result = 'won' and o.amount_minor is not null then o.currency end,
  case when o.result = 'won' and o.amount_minor is not null then o.amount_minor end`;
const OFFER_FACT = ['lead_id', 'owner_company_id', 'assignee_company_id', 'created_at', 'created_week', 'source_type', 'store_id', 'state',
  'decline_reason', 'bucket'];
/** An offer's funnel fact from the offer `f` and its lead `l`, in OFFER_FACT order (offer id first). */
const OFFER_FACT_OF = `f.id, f.lead_id, l.owner_company_id, l.assignee_company_id, l.created_at, date_trunc('week', l.created_at at time zone 'UTC')::date,
  l.source_type, f.store_id, f.state, case when f.state = 'declined' then coalesce(f.decline_reason, 'other') end,
  case when f.state = 'accepted' then leadnet_response_bucket(extract(epoch from f.answered_at - f.offered_at)::float8) end`;

/** The contribution of each lead fact of `table` (signed `sign`), in the shape both rollups read. */
const leadContribution = (table: string, sign: number) => `select ${sign} as s, owner_company_id, assignee_company_id, created_week as week,
  source_type, 'l'::char(1) as kind, assignee_id as store_id, assignee_territory_id as territory_id, assignee_retailer_id as retailer_id, currency,
  1 as leads, contacted::int as contacted, won::int as won, lost::int as lost, coalesce(amount_minor, 0) as amount, 0 as offered, 0 as accepted,
  0 as declined, 0 as expired, ${REASONS.map((r) => `0 as declined_${r}`).join(', ')}, null::smallint as bucket from ${table}`;
/** The contribution of each offer fact of `table` (signed `sign`). */
const offerContribution = (table: string, sign: number) => `select ${sign} as s, owner_company_id, assignee_company_id, created_week as week,
  source_type, 'o'::char(1) as kind, store_id, null::uuid as territory_id, null::uuid as retailer_id, null::char(3) as currency,
  0 as leads, 0 as contacted, 0 as won, 0 as lost, 0 as amount, 1 as offered, (state = 'accepted')::int as accepted,
  (state = 'declined')::int as declined, (state = 'expired')::int as expired,
  ${REASONS.map((r) => `(decline_reason is not distinct from '${r}')::int as declined_${r}`).join(', ')}, bucket from ${table}`;

/** The company weeks' key: no store, so a year of a company is about 53 x sources x currencies rows. */
const WEEK_KEYS = ['owner_company_id', 'assignee_company_id', 'week', 'source_type', 'currency'];
/**
 * The store years' and weeks' keys: a year is the weeks whose Monday is in it; no source, so a company's
 * year is about 4 rows per store (its offers, its leads per won currency or none).
 */
const STORE_KEYS = ['kind', 'store_id', 'territory_id', 'retailer_id', 'currency'];
const YEAR_KEYS = ['owner_company_id', 'assignee_company_id', 'year', ...STORE_KEYS];
const STORE_WEEK_KEYS = ['owner_company_id', 'assignee_company_id', 'week', ...STORE_KEYS];

/**
 * The signed contributions `contributions` (rows of leadContribution / offerContribution) added to the
 * rollup `table` keyed by `keys` (columns of the contribution `c`; `year`, the year of its week's Monday): rows created as needed, removed when they hold no lead and no offer; the
 * accepted offers' buckets summed into the histogram (`histogram[b + 1]` offers in bucket b).
 */
function rollupDelta(table: string, keys: string[], contributions: string): string {
  const keyOf = (k: string) => (k === 'year' ? 'extract(year from c.week)::smallint' : `c.${k}`);
  const from = `(${contributions}) c`;
  return `insert into ${table} as r (slot, ${keys.join(', ')}, ${FUNNEL_FIGURES.join(', ')}, histogram)
    select (select leadnet_count_slot()), ${keys.join(', ')}, ${FUNNEL_FIGURES.map((f) => `sum(${f})`).join(', ')}, leadnet_response_histogram(array_agg(bucket), array_agg(n::int))
      from (select ${keys.map((k) => `${keyOf(k)} as ${k}`).join(', ')}, c.bucket, sum(c.s) as n, ${FUNNEL_FIGURES.map((f) => `sum(c.s * c.${f}) as ${f}`).join(', ')}
              from ${from}
             where c.owner_company_id is not null or c.assignee_company_id is not null
             group by ${keys.map((_, i) => i + 1).join(', ')}, c.bucket
            having not (${FUNNEL_FIGURES.map((f) => `sum(c.s * c.${f}) = 0`).join(' and ')} and (c.bucket is null or sum(c.s) = 0))) d
     group by ${keys.join(', ')}
     order by ${keys.join(', ')}
    on conflict (slot, ${keys.join(', ')}) do update set ${FUNNEL_FIGURES.map((f) => `${f} = r.${f} + excluded.${f}`).join(', ')},
      histogram = leadnet_response_histogram_add(r.histogram, excluded.histogram);
    delete from ${table} where slot = (select leadnet_count_slot()) and ${FUNNEL_EMPTY};`;
}

const allRollups = (contributions: string) => [
  rollupDelta('lead_funnel_weeks', WEEK_KEYS, contributions),
  rollupDelta('lead_funnel_store_years', YEAR_KEYS, contributions),
  rollupDelta('lead_funnel_store_weeks', STORE_WEEK_KEYS, contributions),
].join('\n');

/** A rollup row that holds nothing (its slot's additions and removals cancel out). */
export const FUNNEL_EMPTY = `${FUNNEL_FIGURES.map((f) => `${f} = 0`).join(' and ')} and histogram = '{}'`;

const figureColumns = () => FUNNEL_FIGURES.map((f) => `"${f}" ${f === 'amount' ? 'bigint' : 'int'} not null`).join(', ');

/**
 * Kept funnel figures (issue 42, docs/lead-loop.md "How the funnel is kept"):
 *
 * - `lead_funnel_facts`: one row per lead, what it gives the funnel (its company keys, store, territory,
 *   retailer, creation time and week, source, contacted, won, lost, a won amount and its currency), and
 *   `lead_funnel_offer_facts`, one row per offer (its lead's company keys, creation week and source, the
 *   offer's store, state, decline reason, the log-scale bucket of its seconds to acceptance), refreshed
 *   by statement triggers on `leads`, `lead_offers`, `lead_outcomes` and `lead_response_timers` in the
 *   transaction of every change.
 * - `lead_funnel_weeks`: the facts summed per owner company, assignee company, creation week, source and
 *   currency; `lead_funnel_store_years` and `lead_funnel_store_weeks`: per the same company keys, lead
 *   or offer, store (and the lead's territory and retailer) and currency, for each year (the weeks whose
 *   Monday is in it) and each week; each with a histogram of the accepted offers' buckets. Kept from the facts' transition
 *   tables (added minus removed). A company admin's range of whole weeks reads them instead of its leads.
 * - Each rollup row belongs to a slot: a transaction adds its changes to the rows of its own count slot
 *   (`leadnet_count_slot()`, Migration20261203140000_kept_count_slots), which no other running transaction
 *   writes, so concurrent writers of one store and week never wait for each other's rollup rows (shared
 *   rows deadlocked creates and reassignments at one store). A group's figures are the sum of its slots'
 *   rows; a slot's row is removed when its additions and removals cancel out.
 * Every table is filled from the existing rows.
 */
export class Migration20261207000500_funnel_rollups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "lead_funnel_facts" (
      "lead_id" uuid not null primary key references "leads" ("id") on delete cascade,
      "owner_company_id" uuid null, "assignee_company_id" uuid null, "assignee_id" uuid null, "assignee_territory_id" uuid null,
      "assignee_retailer_id" uuid null, "created_at" timestamptz not null, "created_week" date not null, "source_type" varchar(255) null,
      "contacted" boolean not null, "won" boolean not null, "lost" boolean not null, "currency" char(3) null, "amount_minor" bigint null);`);
    this.addSql(`create table "lead_funnel_offer_facts" (
      "offer_id" uuid not null primary key references "lead_offers" ("id") on delete cascade,
      "lead_id" uuid not null references "leads" ("id") on delete cascade,
      "owner_company_id" uuid null, "assignee_company_id" uuid null, "created_at" timestamptz not null, "created_week" date not null,
      "source_type" varchar(255) null, "store_id" uuid not null, "state" text not null, "decline_reason" text null, "bucket" smallint null);`);
    for (const table of ['lead_funnel_facts', 'lead_funnel_offer_facts']) {
      this.addSql(`create index "${table}_owner_company_index" on "${table}" ("owner_company_id", "created_at") where "owner_company_id" is not null;`);
      this.addSql(`create index "${table}_beyond_company_index" on "${table}" (${BEYOND_COMPANY}, "created_at") where ${BEYOND_COMPANY} is not null;`);
    }
    this.addSql(`create index "lead_funnel_offer_facts_lead_index" on "lead_funnel_offer_facts" ("lead_id");`);

    this.addSql(`create table "lead_funnel_weeks" (
      "slot" smallint not null, "owner_company_id" uuid null, "assignee_company_id" uuid null, "week" date not null, "source_type" varchar(255) null, "currency" char(3) null,
      ${figureColumns()}, "histogram" int[] not null,
      constraint "lead_funnel_weeks_key" unique nulls not distinct ("slot", ${WEEK_KEYS.map((k) => `"${k}"`).join(', ')}));`);
    this.addSql(`create index "lead_funnel_weeks_beyond_company_index" on "lead_funnel_weeks" (${BEYOND_COMPANY}, "week") where ${BEYOND_COMPANY} is not null;`);
    const storeKeyColumns = `"kind" char(1) not null, "store_id" uuid null, "territory_id" uuid null, "retailer_id" uuid null, "currency" char(3) null`;
    this.addSql(`create table "lead_funnel_store_years" (
      "slot" smallint not null, "owner_company_id" uuid null, "assignee_company_id" uuid null, "year" smallint not null, ${storeKeyColumns},
      ${figureColumns()}, "histogram" int[] not null,
      constraint "lead_funnel_store_years_key" unique nulls not distinct ("slot", ${YEAR_KEYS.map((k) => `"${k}"`).join(', ')}));`);
    this.addSql(`create index "lead_funnel_store_years_beyond_company_index" on "lead_funnel_store_years" (${BEYOND_COMPANY}, "year") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create table "lead_funnel_store_weeks" (
      "slot" smallint not null, "owner_company_id" uuid null, "assignee_company_id" uuid null, "week" date not null, ${storeKeyColumns},
      ${figureColumns()}, "histogram" int[] not null,
      constraint "lead_funnel_store_weeks_key" unique nulls not distinct ("slot", ${STORE_WEEK_KEYS.map((k) => `"${k}"`).join(', ')}));`);
    this.addSql(`create index "lead_funnel_store_weeks_owner_company_index" on "lead_funnel_store_weeks" ("owner_company_id", "week") where "owner_company_id" is not null;`);
    this.addSql(`create index "lead_funnel_store_weeks_beyond_company_index" on "lead_funnel_store_weeks" (${BEYOND_COMPANY}, "week") where ${BEYOND_COMPANY} is not null;`);
    for (const table of ['lead_funnel_weeks', 'lead_funnel_store_years', 'lead_funnel_store_weeks']) {
      this.addSql(`create index "${table}_empty_index" on "${table}" ("slot") where "leads" = 0 and "offered" = 0;`);
    }

    // Back-fill from the rows there are (the same statements the triggers run), then keep.
    this.addSql(`insert into lead_funnel_facts (lead_id, ${LEAD_FACT.join(', ')})
      select ${LEAD_FACT_OF} from leads l left join lead_response_timers t on t.lead_id = l.id left join lead_outcomes o on o.lead_id = l.id;`);
    this.addSql(`insert into lead_funnel_offer_facts (offer_id, ${OFFER_FACT.join(', ')})
      select ${OFFER_FACT_OF} from lead_offers f join leads l on l.id = f.lead_id;`);
    this.addSql(allRollups(`${leadContribution('lead_funnel_facts', 1)} union all ${offerContribution('lead_funnel_offer_facts', 1)}`));
    // Small, hot tables: a parallel plan costs more in worker start-up than it saves (most on a loaded host).
    for (const table of ['lead_funnel_facts', 'lead_funnel_offer_facts', 'lead_funnel_weeks', 'lead_funnel_store_years', 'lead_funnel_store_weeks']) {
      this.addSql(`alter table "${table}" set (parallel_workers = 0);`);
      this.addSql(`analyze "${table}";`);
    }

    // The facts of the leads `ids` and of their offers, written only where they changed.
    // plpgsql: its statements' plans are kept per connection (a language sql function plans them on every call).
    this.addSql(`create or replace function leadnet_funnel_facts_refresh(ids uuid[]) returns void
      language plpgsql as $$
      begin
        -- A statement that touched no funnel column (the workers' timer updates, most lead updates) costs nothing more.
        if coalesce(cardinality(ids), 0) = 0 then return; end if;
        insert into lead_funnel_facts as f (lead_id, ${LEAD_FACT.join(', ')})
        select ${LEAD_FACT_OF} from leads l left join lead_response_timers t on t.lead_id = l.id left join lead_outcomes o on o.lead_id = l.id
         where l.id = any(ids) order by l.id
        on conflict (lead_id) do update set (${LEAD_FACT.join(', ')}) = (${LEAD_FACT.map((c) => `excluded.${c}`).join(', ')})
         where (${LEAD_FACT.map((c) => `f.${c}`).join(', ')}) is distinct from (${LEAD_FACT.map((c) => `excluded.${c}`).join(', ')});
        insert into lead_funnel_offer_facts as x (offer_id, ${OFFER_FACT.join(', ')})
        select ${OFFER_FACT_OF} from lead_offers f join leads l on l.id = f.lead_id where f.lead_id = any(ids) order by f.id
        on conflict (offer_id) do update set (${OFFER_FACT.join(', ')}) = (${OFFER_FACT.map((c) => `excluded.${c}`).join(', ')})
         where (${OFFER_FACT.map((c) => `x.${c}`).join(', ')}) is distinct from (${OFFER_FACT.map((c) => `excluded.${c}`).join(', ')});
      end $$;`);
    // What each source table's change refreshes: the rows whose funnel columns changed.
    const SOURCES: { table: string; id: string; columns: string[] }[] = [
      { table: 'leads', id: 'id', columns: ['owner_company_id', 'assignee_company_id', 'assignee_id', 'assignee_territory_id', 'assignee_retailer_id', 'created_at', 'source_type'] },
      { table: 'lead_offers', id: 'lead_id', columns: ['lead_id', 'store_id', 'state', 'decline_reason', 'offered_at', 'answered_at'] },
      { table: 'lead_outcomes', id: 'lead_id', columns: ['lead_id', 'result', 'amount_minor', 'currency'] },
      { table: 'lead_response_timers', id: 'lead_id', columns: ['lead_id', 'answered_at'] },
    ];
    for (const { table, id, columns } of SOURCES) {
      const key = table === 'leads' || table === 'lead_outcomes' || table === 'lead_response_timers' ? id : 'id';
      this.addSql(`create or replace function leadnet_funnel_${table}_inserted() returns trigger language plpgsql as $$
        begin perform leadnet_funnel_facts_refresh(array(select distinct ${id} from changed)); return null; end $$;`);
      this.addSql(`create or replace function leadnet_funnel_${table}_updated() returns trigger language plpgsql as $$
        begin
          perform leadnet_funnel_facts_refresh(array(
            select n.${id} from changed n join previous o on o.${key} = n.${key}
             where (${columns.map((c) => `n.${c}`).join(', ')}) is distinct from (${columns.map((c) => `o.${c}`).join(', ')})
            union select o.${id} from changed n join previous o on o.${key} = n.${key} where o.${id} is distinct from n.${id}));
          return null;
        end $$;`);
      this.addSql(`create trigger "funnel_${table}_inserted" after insert on "${table}"
        referencing new table as changed for each statement execute function leadnet_funnel_${table}_inserted();`);
      this.addSql(`create trigger "funnel_${table}_updated" after update on "${table}"
        referencing old table as previous new table as changed for each statement execute function leadnet_funnel_${table}_updated();`);
      if (table !== 'leads') {
        // A deleted lead takes its facts with it (on delete cascade); a deleted offer, outcome or timer changes its lead's.
        this.addSql(`create or replace function leadnet_funnel_${table}_deleted() returns trigger language plpgsql as $$
          begin perform leadnet_funnel_facts_refresh(array(select distinct ${id} from previous)); return null; end $$;`);
        this.addSql(`create trigger "funnel_${table}_deleted" after delete on "${table}"
          referencing old table as previous for each statement execute function leadnet_funnel_${table}_deleted();`);
      }
    }

    const contributions = {
      lead_funnel_facts: (added: string | null, removed: string | null) =>
        [added && leadContribution(added, 1), removed && leadContribution(removed, -1)].filter(Boolean).join(' union all '),
      lead_funnel_offer_facts: (added: string | null, removed: string | null) =>
        [added && offerContribution(added, 1), removed && offerContribution(removed, -1)].filter(Boolean).join(' union all '),
    };
    for (const [table, of] of Object.entries(contributions)) {
      for (const [op, added, removed] of [['inserted', 'changed', null], ['updated', 'changed', 'previous'], ['deleted', null, 'previous']] as const) {
        // A statement trigger fires for no rows too (the refresh's upsert fires the insert and the update trigger).
        this.addSql(`create or replace function leadnet_${table}_rollups_${op}() returns trigger language plpgsql as $$
          begin
            if not exists (select 1 from ${added ?? removed}) then return null; end if;
            ${allRollups(of(added, removed))}
            return null;
          end $$;`);
        const referencing = [removed && 'old table as previous', added && 'new table as changed'].filter(Boolean).join(' ');
        this.addSql(`create trigger "${table}_rollups_${op}" after ${{ inserted: 'insert', updated: 'update', deleted: 'delete' }[op]} on "${table}"
          referencing ${referencing} for each statement execute function leadnet_${table}_rollups_${op}();`);
      }
    }
  }

  override async down(): Promise<void> {
    for (const table of ['leads', 'lead_offers', 'lead_outcomes', 'lead_response_timers']) {
      for (const op of ['inserted', 'updated', 'deleted']) {
        this.addSql(`drop trigger if exists "funnel_${table}_${op}" on "${table}";`);
        this.addSql(`drop function if exists leadnet_funnel_${table}_${op}();`);
      }
    }
    for (const table of ['lead_funnel_facts', 'lead_funnel_offer_facts']) {
      for (const op of ['inserted', 'updated', 'deleted']) this.addSql(`drop function if exists leadnet_${table}_rollups_${op}() cascade;`);
    }
    this.addSql(`drop function if exists leadnet_funnel_facts_refresh(uuid[]);`);
    for (const table of ['lead_funnel_store_weeks', 'lead_funnel_store_years', 'lead_funnel_weeks', 'lead_funnel_offer_facts', 'lead_funnel_facts']) this.addSql(`drop table if exists "${table}";`);
  }
}
