import { Migration } from '@mikro-orm/migrations';
import { storeWeeksDelta } from './Migration20261128100000_response_store_stats';

/** The lead's scope keys a fact copies (Migration20261127130000_response_stats). */
const KEYS = ['owner_company_id', 'owner_retailer_id', 'assignee_id', 'assignee_company_id', 'assignee_territory_id',
  'assignee_company_retailer_id', 'assignee_retailer_id', 'assignee_retailer_location_id'];
const ROLLUP_KEYS = ['owner_company_id', 'assignee_company_id', 'created_week', 'assigned_week', 'bucket'];

/** A lead's fact from the lead `l` and its timer `t`; with `counts`, its breach count last. */
function factColumns(counts: boolean): string[] {
  return [...KEYS, 'created_at', 'created_week', 'assigned_week', 'bucket', 'breached', 'won', 'lost', ...(counts ? ['breaches'] : [])];
}
function factOf(counts: boolean): string {
  return `l.id, ${KEYS.map((k) => `l.${k}`).join(', ')}, l.created_at,
  date_trunc('week', l.created_at at time zone 'UTC')::date, date_trunc('week', t.first_assigned_at at time zone 'UTC')::date,
  leadnet_response_bucket(extract(epoch from t.answered_at - t.assigned_at)::float8), t.breached_at is not null,
  lower(l.status) = 'won', lower(l.status) = 'lost'${counts ? ', greatest(t.breaches, (t.breached_at is not null)::int)' : ''}`;
}

/**
 * `leadnet_response_facts_refresh(ids)`. In `plpgsql` (Migration20261207000800_response_facts_plpgsql) its
 * plans are kept by the session and an empty `ids` runs no statement (none of the facts' own triggers).
 */
export function refreshFunction(counts: boolean, language: 'sql' | 'plpgsql' = 'sql'): string {
  const FACT = factColumns(counts);
  const statements = `delete from lead_response_facts f where f.lead_id = any(ids)
           and not exists (select 1 from leads l join lead_response_timers t on t.lead_id = l.id where l.id = f.lead_id);
        insert into lead_response_facts as f (lead_id, ${FACT.join(', ')})
        select ${factOf(counts)} from leads l join lead_response_timers t on t.lead_id = l.id where l.id = any(ids) order by l.id
        on conflict (lead_id) do update set (${FACT.join(', ')}) = (${FACT.map((c) => `excluded.${c}`).join(', ')})
         where (${FACT.map((c) => `f.${c}`).join(', ')}) is distinct from (${FACT.map((c) => `excluded.${c}`).join(', ')});`;
  const body = language === 'sql' ? statements : `begin
        if coalesce(cardinality(ids), 0) = 0 then return; end if;
        ${statements}
      end`;
  return `create or replace function leadnet_response_facts_refresh(ids uuid[]) returns void
      language ${language} as $$
        ${body}
      $$;`;
}

function timersUpdatedFunction(counts: boolean): string {
  const TIMER = ['store_id', 'first_assigned_at', 'assigned_at', 'answered_at', 'breached_at', ...(counts ? ['breaches'] : [])];
  return `create or replace function leadnet_response_facts_timers_updated() returns trigger language plpgsql as $$
      begin
        perform leadnet_response_facts_refresh(array(
          select distinct n.lead_id from changed n join previous o on o.lead_id = n.lead_id
           where (${TIMER.map((c) => `n.${c}`).join(', ')}) is distinct from (${TIMER.map((c) => `o.${c}`).join(', ')})));
        return null;
      end $$;`;
}

/** Migration20261127130000_response_stats's rollup delta, summing `breach` (an int expression over a fact). */
function rollupDelta(added: string | null, removed: string | null, breach: string): string {
  const part = (table: string, sign: number) => `select ${sign} as s, ${ROLLUP_KEYS.join(', ')}, ${breach} as b, won, lost from ${table}`;
  const parts = [added && part(added, 1), removed && part(removed, -1)].filter(Boolean).join(' union all ');
  return `insert into lead_response_rollups as r (${ROLLUP_KEYS.join(', ')}, received, breaches, won, lost)
    select ${ROLLUP_KEYS.join(', ')}, sum(s), sum(s * b), sum(s * won::int), sum(s * lost::int)
      from (${parts}) d
     where owner_company_id is not null or assignee_company_id is not null
     group by ${ROLLUP_KEYS.join(', ')}
    having sum(s) <> 0 or sum(s * b) <> 0 or sum(s * won::int) <> 0 or sum(s * lost::int) <> 0
     order by ${ROLLUP_KEYS.join(', ')}
    on conflict (${ROLLUP_KEYS.join(', ')}) do update set received = r.received + excluded.received,
      breaches = r.breaches + excluded.breaches, won = r.won + excluded.won, lost = r.lost + excluded.lost;
    delete from lead_response_rollups where received = 0;`;
}

/** Migration20261128100000_response_store_stats's store weeks delta, its breaches the facts' counts. */
function weeksDelta(added: string | null, removed: string | null, counts: boolean): string {
  const sql = storeWeeksDelta(added, removed);
  return counts ? sql.replace(/created_week, bucket, breached, won, lost from/g, 'created_week, bucket, breaches as breached, won, lost from').replace(/breached::int/g, 'breached') : sql;
}

function keptFunctions(counts: boolean): string[] {
  const breach = counts ? 'breaches' : 'breached::int';
  return [
    refreshFunction(counts),
    timersUpdatedFunction(counts),
    `create or replace function leadnet_response_rollups_facts_inserted() returns trigger language plpgsql as $$
      begin ${rollupDelta('changed', null, breach)} return null; end $$;`,
    `create or replace function leadnet_response_rollups_facts_updated() returns trigger language plpgsql as $$
      begin ${rollupDelta('changed', 'previous', breach)} return null; end $$;`,
    `create or replace function leadnet_response_rollups_facts_deleted() returns trigger language plpgsql as $$
      begin ${rollupDelta(null, 'previous', breach)} return null; end $$;`,
    `create or replace function leadnet_response_store_weeks_facts_inserted() returns trigger language plpgsql as $$
      begin ${weeksDelta('changed', null, counts)} return null; end $$;`,
    `create or replace function leadnet_response_store_weeks_facts_updated() returns trigger language plpgsql as $$
      begin ${weeksDelta('changed', 'previous', counts)} return null; end $$;`,
    `create or replace function leadnet_response_store_weeks_facts_deleted() returns trigger language plpgsql as $$
      begin ${weeksDelta(null, 'previous', counts)} return null; end $$;`,
  ];
}

/**
 * Breaches are kept facts (docs/response-times.md "Breaches"): a lead's timer counts every breach it had
 * (`lead_response_timers.breaches`, never reset by a reassignment, which restarts the timer and clears its
 * `breached_at`), and the lead's fact carries that count (`lead_response_facts.breaches`), so
 * `leadResponseStats.breaches` sums breaches as they happened: a lead that breached at five stores in a
 * row counts five, not the one its current timer shows. The rollups and store weeks sum the counts.
 * Back-filled from the `lead.sla_breached` events of each lead.
 */
export class Migration20261206150400_breach_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "lead_response_timers" add column "breaches" int not null default 0;`);
    this.addSql(`alter table "lead_response_facts" add column "breaches" int not null default 0;`);
    // The counts as they are summed today (one per breached lead), under the old trigger functions (which ignore the new column).
    this.addSql(`update lead_response_facts set breaches = 1 where breached;`);
    this.addSql(`update lead_response_timers t set breaches = greatest(c.n, (t.breached_at is not null)::int)
      from (select lead_id, count(*)::int as n from lead_events where type = 'lead.sla_breached' group by lead_id) c
     where c.lead_id = t.lead_id;`);
    for (const sql of keptFunctions(true)) this.addSql(sql);
    // Leads that breached more than once, or before a reassignment: their facts (and so the rollups and store weeks) take the count.
    this.addSql(`select leadnet_response_facts_refresh(array(select lead_id from lead_response_timers where breaches > 0));`);
  }

  override async down(): Promise<void> {
    // The sums back to one per breached lead (under the counting functions), then the old functions.
    this.addSql(`update lead_response_facts set breaches = breached::int where breaches <> breached::int;`);
    for (const sql of keptFunctions(false)) this.addSql(sql);
    this.addSql(`alter table "lead_response_facts" drop column if exists "breaches";`);
    this.addSql(`alter table "lead_response_timers" drop column if exists "breaches";`);
  }
}
