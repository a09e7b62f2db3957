// The response facts' maintenance costs nothing on writes that move no fact
// (Migration20261207000800_response_facts_plpgsql): every update of a lead, an event or a timer calls
// `leadnet_response_facts_refresh`, most often with no lead to refresh (a lead's search text rewritten for
// a new email, an event no timer follows); then no statement runs, so none of the facts' own triggers
// (rollups, store weeks) fire. A write that moves a fact still reaches them. Counted by PostgreSQL
// (`track_functions`, `pg_stat_xact_user_functions`: the calls of the current transaction).
import { createLead, leadSuite, quoteRequest } from '../support/leads';

const s = leadSuite();

const FACT_TRIGGERS = ['leadnet_response_rollups_facts_inserted', 'leadnet_response_rollups_facts_updated', 'leadnet_response_rollups_facts_deleted',
  'leadnet_response_store_weeks_facts_inserted', 'leadnet_response_store_weeks_facts_updated', 'leadnet_response_store_weeks_facts_deleted'];

/** The trigger functions of the facts that `statement` called, by name (rolled back). */
async function factTriggersCalledBy(statement: string, params: unknown[]): Promise<Record<string, number>> {
  await s.db.query('begin');
  try {
    await s.db.query(`set local track_functions = 'pl'`);
    await s.db.query(statement, params);
    const { rows } = await s.db.query(`select funcname, calls::int from pg_stat_xact_user_functions where funcname = any($1)`, [FACT_TRIGGERS]);
    return Object.fromEntries(rows.map((row) => [row.funcname, row.calls]));
  } finally {
    await s.db.query('rollback');
  }
}

test("a lead's new email, its search text rewritten, and an event no timer follows fire none of the facts' triggers", async () => {
  // Assigned: the lead has a timer and a fact, so a write that moved a fact column would reach them.
  const lead = await createLead(s.t, s.r.users.companyAdmin.key, quoteRequest({ assignee_id: s.r.net.storeNorth.id }));
  expect((await s.db.query('select count(*)::int as n from lead_response_facts where lead_id = $1', [lead.id])).rows[0].n).toBe(1);

  expect(await factTriggersCalledBy(`insert into emails (id, email, lead_id, created_at, updated_at) values (gen_random_uuid(), $2, $1, now(), now())`, [lead.id, `more.${Date.now()}@example.com`])).toEqual({});
  expect(await factTriggersCalledBy(`update leads set search_text = search_text || ' x' where id = $1`, [lead.id])).toEqual({});
  expect(await factTriggersCalledBy(`insert into lead_events (type, lead_id, owner_company_id, data) select 'lead.updated', id, owner_company_id, '{}' from leads where id = $1`, [lead.id])).toEqual({});
  // A status the facts count (won) does reach them.
  expect(await factTriggersCalledBy(`update leads set status = 'Won' where id = $1`, [lead.id])).toMatchObject({ leadnet_response_rollups_facts_updated: 1, leadnet_response_store_weeks_facts_updated: 1 });
});
