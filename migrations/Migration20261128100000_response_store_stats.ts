import { Migration } from '@mikro-orm/migrations';

/** A store's keys in the facts: the company scope arms (owner, assignee company) and the groupings (store, its territory and retailer). */
const KEYS = ['owner_company_id', 'assignee_company_id', 'assignee_id', 'assignee_territory_id', 'assignee_retailer_id'];
const BEYOND_COMPANY = '(case when assignee_company_id is distinct from owner_company_id then assignee_company_id end)';
/** The Monday of the last week (UTC, Monday first) whose Monday is in the year of the Monday `week`. */
const LAST_WEEK_OF_YEAR = (week: string) => `date_trunc('week', make_date(extract(year from ${week})::int, 12, 31))::date`;

/**
 * The facts of `added` minus those of `removed` (transition tables of `lead_response_facts`) added to the
 * store's weeks: a fact of week w counts in every week of its year from w on (the figures are running
 * totals within a year), rows are created as needed and removed when nothing is left in them.
 */
export function storeWeeksDelta(added: string | null, removed: string | null): string {
  const part = (table: string, sign: number) => `select ${sign} as s, ${KEYS.join(', ')}, created_week, bucket, breached, won, lost from ${table}`;
  const parts = [added && part(added, 1), removed && part(removed, -1)].filter(Boolean).join(' union all ');
  return `insert into lead_response_store_weeks as r (${KEYS.join(', ')}, week, received, answered, breaches, won, lost, histogram)
    select ${KEYS.join(', ')}, w.week, sum(d.n)::int, coalesce(sum(d.n) filter (where d.bucket is not null), 0)::int, sum(d.b)::int, sum(d.w)::int, sum(d.l)::int,
           leadnet_response_histogram(array_agg(d.bucket), array_agg(d.n::int))
      from (select ${KEYS.join(', ')}, created_week, bucket, sum(s) as n, sum(s * breached::int) as b, sum(s * won::int) as w, sum(s * lost::int) as l
              from (${parts}) x
             where owner_company_id is not null or assignee_company_id is not null
             group by ${KEYS.join(', ')}, created_week, bucket
            having sum(s) <> 0 or sum(s * breached::int) <> 0 or sum(s * won::int) <> 0 or sum(s * lost::int) <> 0) d
      cross join lateral (select g::date as week from generate_series(d.created_week, ${LAST_WEEK_OF_YEAR('d.created_week')}, interval '7 days') g) w
     group by ${KEYS.join(', ')}, w.week
     order by ${KEYS.join(', ')}, w.week
    on conflict (${KEYS.join(', ')}, week) do update set received = r.received + excluded.received,
      answered = r.answered + excluded.answered, breaches = r.breaches + excluded.breaches,
      won = r.won + excluded.won, lost = r.lost + excluded.lost, histogram = leadnet_response_histogram_add(r.histogram, excluded.histogram);
    delete from lead_response_store_weeks where received = 0;`;
}

/**
 * Response-time figures per store and week, as running totals within each calendar year
 * (docs/response-times.md "How the figures are kept"): the row of (store keys, week w) holds the facts
 * of the store created in the weeks of w's year up to w: received, answered, breaches, won, lost, and
 * the histogram of the answered ones' buckets (`histogram[b + 1]` leads in bucket b). Any whole weeks
 * of one year are then the difference of two rows, so a store's figures over a year are one or two rows
 * whatever its number of leads. Kept from the facts' transition tables (as `lead_response_rollups`);
 * a store's territory or retailer is the one on its facts (the store's current one, as the leads').
 */
export class Migration20261128100000_response_store_stats extends Migration {
  override async up(): Promise<void> {
    // Histograms: element i + 1 counts bucket i; trailing zeros trimmed, so equal histograms are equal arrays.
    // A loop over the added histogram, in place (plpgsql keeps arrays expanded): a set-based SQL version
    // (unnest, window, array_agg) costs several times as much, paid once per running-total row written.
    this.addSql(`create or replace function leadnet_response_histogram_add(a int[], b int[]) returns int[]
      language plpgsql immutable parallel safe as $$
      declare
        r int[] := coalesce(a, '{}');
        n int := coalesce(cardinality(b), 0);
        i int;
      begin
        if n > coalesce(cardinality(r), 0) then r := r || array_fill(0, array[n - coalesce(cardinality(r), 0)]); end if;
        for i in 1..n loop
          if b[i] <> 0 then r[i] := r[i] + b[i]; end if;
        end loop;
        i := coalesce(cardinality(r), 0);
        while i > 0 and r[i] = 0 loop i := i - 1; end loop;
        return r[1:i];
      end $$;`);
    // The histogram of (bucket, count) pairs (null buckets, the unanswered, left out).
    this.addSql(`create or replace function leadnet_response_histogram(buckets smallint[], counts int[]) returns int[]
      language plpgsql immutable parallel safe as $$
      declare
        r int[] := array_fill(0, array[coalesce((select max(b) from unnest(buckets) b), -1) + 1]);
        i int;
      begin
        for i in 1..coalesce(cardinality(buckets), 0) loop
          if buckets[i] is not null then r[buckets[i] + 1] := r[buckets[i] + 1] + counts[i]; end if;
        end loop;
        i := cardinality(r);
        while i > 0 and r[i] = 0 loop i := i - 1; end loop;
        return r[1:i];
      end $$;`);
    this.addSql(`create table "lead_response_store_weeks" (
      ${KEYS.map((k) => `"${k}" uuid null`).join(', ')},
      "week" date not null,
      "received" int not null,
      "answered" int not null,
      "breaches" int not null,
      "won" int not null,
      "lost" int not null,
      "histogram" int[] not null,
      constraint "lead_response_store_weeks_key" unique nulls not distinct (${KEYS.map((k) => `"${k}"`).join(', ')}, "week"));`);
    this.addSql(`create index "lead_response_store_weeks_owner_company_index" on "lead_response_store_weeks" ("owner_company_id", "week") where "owner_company_id" is not null;`);
    this.addSql(`create index "lead_response_store_weeks_beyond_company_index" on "lead_response_store_weeks" (${BEYOND_COMPANY}, "week") where ${BEYOND_COMPANY} is not null;`);
    this.addSql(`create index "lead_response_store_weeks_empty_index" on "lead_response_store_weeks" ("received") where "received" = 0;`);
    this.addSql(`alter table "lead_response_store_weeks" set (parallel_workers = 0);`);
    // A store's facts by its index alone (grouping by store then week walks the stores one by one).
    this.addSql(`create index "lead_response_facts_assignee_covering_index" on "lead_response_facts" ("assignee_id", "created_at")
      include ("owner_company_id", "assignee_company_id", "assigned_week", "bucket", "breached", "won", "lost");`);
    this.addSql(`drop index if exists "lead_response_facts_assignee_index";`);
    // A territory manager's leads (their company's stores in their territory) by an index alone, not a scan of the facts.
    this.addSql(`create index "lead_response_facts_assignee_territory_index" on "lead_response_facts" ("assignee_territory_id", "assignee_company_id", "created_at")
      include ("assignee_id", "assigned_week", "bucket", "breached", "won", "lost") where "assignee_territory_id" is not null;`);

    this.addSql(`create or replace function leadnet_response_store_weeks_facts_inserted() returns trigger language plpgsql as $$
      begin ${storeWeeksDelta('changed', null)} return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_store_weeks_facts_updated() returns trigger language plpgsql as $$
      begin ${storeWeeksDelta('changed', 'previous')} return null; end $$;`);
    this.addSql(`create or replace function leadnet_response_store_weeks_facts_deleted() returns trigger language plpgsql as $$
      begin ${storeWeeksDelta(null, 'previous')} return null; end $$;`);
    // Back-fill from the facts there are (the same statement the triggers run), then keep.
    this.addSql(storeWeeksDelta('lead_response_facts', null));
    this.addSql(`analyze "lead_response_store_weeks";`);
    this.addSql(`create trigger "response_store_weeks_facts_inserted" after insert on "lead_response_facts"
      referencing new table as changed for each statement execute function leadnet_response_store_weeks_facts_inserted();`);
    this.addSql(`create trigger "response_store_weeks_facts_updated" after update on "lead_response_facts"
      referencing old table as previous new table as changed for each statement execute function leadnet_response_store_weeks_facts_updated();`);
    this.addSql(`create trigger "response_store_weeks_facts_deleted" after delete on "lead_response_facts"
      referencing old table as previous for each statement execute function leadnet_response_store_weeks_facts_deleted();`);
  }

  override async down(): Promise<void> {
    for (const t of ['inserted', 'updated', 'deleted']) {
      this.addSql(`drop trigger if exists "response_store_weeks_facts_${t}" on "lead_response_facts";`);
      this.addSql(`drop function if exists leadnet_response_store_weeks_facts_${t}();`);
    }
    this.addSql(`drop table if exists "lead_response_store_weeks";`);
    this.addSql(`create index if not exists "lead_response_facts_assignee_index" on "lead_response_facts" ("assignee_id", "created_at");`);
    this.addSql(`drop index if exists "lead_response_facts_assignee_covering_index";`);
    this.addSql(`drop index if exists "lead_response_facts_assignee_territory_index";`);
    this.addSql(`drop function if exists leadnet_response_histogram(smallint[], int[]);`);
    this.addSql(`drop function if exists leadnet_response_histogram_add(int[], int[]);`);
  }
}
