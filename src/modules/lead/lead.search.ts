import { visibleType } from '../../access/visibility';
import { leadPolicy } from './lead.policy';
import { Lead } from './lead.entity';
import type { SearchDocument, SearchField } from '../../search/types';
import { crlScopeFields } from '../company-retailer-location/company-retailer-location.search';

/** The CRL a lead is assigned to (alias `a`) and the fields `crlScope(caller, 'assignee_')` reads. */
const ASSIGNEE = crlScopeFields('a', 'assignee_');

/**
 * The same fields as kept on the row `on` itself by triggers: a lead (Migration20261123110000_lead_scope_keys)
 * or a lead activity, which keeps its lead's (Migration20261124171000_lead_activity_assignee_keys), so
 * that a scope is an index range over the list's own table and needs no join.
 */
function assigneeFields(on: 'l' | 'la'): Record<string, SearchField> {
  return Object.fromEntries(Object.entries(ASSIGNEE.fields).map(([name, f]): [string, SearchField] => [name, { sql: `${on}.${name}`, type: f.type }]));
}

/**
 * The assignee's company (retailer) when it is not the lead's owner, else null, over the row `on` that
 * keeps both: "owner is A or assignee is of A" is "owner is A or assignee beyond the owner is of A", whose
 * branches never overlap and have an index each (partial expression indexes, which these expressions
 * must match).
 */
function beyondOwnerFields(on: 'l' | 'la'): Record<string, SearchField> {
  return {
    assignee_company_beyond_owner_id: {
      sql: `(case when ${on}.assignee_company_id is distinct from ${on}.owner_company_id then ${on}.assignee_company_id end)`,
      type: 'uuid',
      neverEquals: 'owner_company_id',
    },
    assignee_retailer_beyond_owner_id: {
      sql: `(case when ${on}.assignee_retailer_id is distinct from ${on}.owner_retailer_id then ${on}.assignee_retailer_id end)`,
      type: 'uuid',
      neverEquals: 'owner_retailer_id',
    },
  };
}

/**
 * The lead fields the lead scope reads (owner and creator), the owner over the row `owner` holds it on:
 * the lead `l`, or an activity `la`, which keeps its lead's owner
 * (Migration20261124161000_lead_activity_owner_keys) so that the owner admins' branch reads no lead.
 */
function ownerFields(owner: 'l' | 'la'): Record<string, SearchField> {
  return {
    owner_id: { sql: `coalesce(${owner}.owner_company_id, ${owner}.owner_retailer_id)`, type: 'uuid' },
    owner_type: { sql: `case when ${owner}.owner_company_id is not null then 'Company' else 'Retailer' end`, type: 'string' },
    owner_company_id: { sql: `${owner}.owner_company_id`, type: 'uuid' },
    owner_retailer_id: { sql: `${owner}.owner_retailer_id`, type: 'uuid' },
    created_by_id: { sql: 'l.created_by_id', type: 'uuid' },
  };
}

/**
 * The tails of 4 or more digits of a lead's phone numbers (`15035550100`, `5035550100`, ... `0100`): any
 * run of digits of a number starts one of them, which is how `q` words match (word prefixes).
 */
const PHONE_DIGITS = String.raw`array(select substr(d.digits, i) from phone_numbers p
      cross join lateral (select regexp_replace(p.phone_number, '\D', '', 'g') as digits) d
      cross join lateral generate_series(1, length(d.digits) - 3) i
      where p.lead_id = l.id order by p.seq, i)`;

/** What a lead list can search, filter, order and aggregate on. */
export const leadSearch: SearchDocument = {
  name: 'leads',
  sources: [
    { table: 'leads', ids: 'select ($1).id' },
    { table: 'emails', ids: 'select ($1).lead_id where ($1).lead_id is not null' },
    { table: 'phone_numbers', ids: 'select ($1).lead_id where ($1).lead_id is not null' },
    { table: 'lead_activities', ids: 'select ($1).lead_id' },
    { table: 'locations', ids: 'select l.id from leads l where l.location_id = ($1).id' },
    { table: 'company_retailer_locations', ids: 'select l.id from leads l where l.assignee_id = ($1).id' },
    { table: 'company_retailers', ids: 'select l.id from leads l join company_retailer_locations a on a.id = l.assignee_id where a.company_retailer_id = ($1).id' },
    { table: 'retailer_locations', ids: 'select l.id from leads l join company_retailer_locations a on a.id = l.assignee_id where a.retailer_location_id = ($1).id' },
  ],
  from: 'leads l',
  alias: 'l',
  joins: [{ alias: 'loc', sql: 'left join locations loc on loc.id = l.location_id' }],
  // Kept equal to textExpression(leadSearch) by triggers (Migration20261125160000_lead_search_text_statements).
  textSql: 'l.search_text',
  // Kept by triggers (Migration20261124170000_lead_owner_counts, Migration20261202100000_lead_assignee_counts,
  // Migration20261130100000_lead_day_counts): every admin's and manager's scope branch but its own leads'
  // (`created_by_id`) is counted there; an admin's own leads also per day of creation.
  counts: {
    table: 'lead_counts',
    fields: [
      'owner_company_id',
      'owner_retailer_id',
      'assignee_company_beyond_owner_id',
      'assignee_retailer_beyond_owner_id',
      ['assignee_company_id', 'assignee_territory_id'],
      ['assignee_company_id', 'assignee_company_retailer_id'],
    ],
    byDay: { table: 'lead_day_counts', field: 'created_at', fields: ['owner_company_id', 'owner_retailer_id'] },
  },
  fields: {
    id: { sql: 'l.id', type: 'uuid' },
    name: { sql: 'l.name', type: 'string', text: true },
    status: { sql: 'l.status', type: 'string', text: true },
    emails: { sql: 'array(select e.email from emails e where e.lead_id = l.id order by e.seq)', type: 'string', array: true, text: true },
    phone_numbers: { sql: 'array(select p.phone_number from phone_numbers p where p.lead_id = l.id)', type: 'string', array: true },
    // What `q` reads of the phone numbers: every tail of 4+ digits of each E.164 number, so a number
    // matches as people type it (`503-555-0100`, `(503) 555-0100`, `+1 503 555 0100`, `5550`).
    phone_digits: { sql: PHONE_DIGITS, type: 'string', array: true, text: true },
    ...ownerFields('l'),
    ...assigneeFields('l'),
    ...beyondOwnerFields('l'),
    assignee_type: { sql: "case when l.assignee_id is not null then 'CompanyRetailerLocation' end", type: 'string' },
    territory_id: assigneeFields('l').assignee_territory_id,
    source_id: { sql: 'l.source_id', type: 'uuid' },
    source_type: { sql: 'l.source_type', type: 'string' },
    city: { sql: 'loc.city', type: 'string', text: true },
    province: { sql: 'loc.province', type: 'string', text: true },
    country: { sql: 'loc.country', type: 'string', text: true },
    postal_code: { sql: 'loc.postal_code', type: 'string', text: true },
    activity_types: {
      sql: 'array(select distinct la.type::text from lead_activities la where la.lead_id = l.id)',
      type: 'string',
      array: true,
    },
    created_at: { sql: 'l.created_at', type: 'date' },
    updated_at: { sql: 'l.updated_at', type: 'date' },
    // Escalated leads waiting to be reassigned (docs/lead-loop.md "Escalation"): few, under a partial index
    // (Migration20261206200100_lead_escalations).
    escalated_at: { sql: 'l.escalated_at', type: 'date' },
  },
};

/** What a lead activity list can search, filter, order and aggregate on; scoped through its lead. */
export const leadActivitySearch: SearchDocument = {
  name: 'lead_activities',
  sources: [
    { table: 'lead_activities', ids: 'select ($1).id' },
    { table: 'leads', ids: 'select la.id from lead_activities la where la.lead_id = ($1).id' },
    { table: 'company_retailer_locations', ids: 'select la.id from lead_activities la join leads l on l.id = la.lead_id where l.assignee_id = ($1).id' },
    { table: 'company_retailers', ids: 'select la.id from lead_activities la join leads l on l.id = la.lead_id join company_retailer_locations a on a.id = l.assignee_id where a.company_retailer_id = ($1).id' },
    { table: 'retailer_locations', ids: 'select la.id from lead_activities la join leads l on l.id = la.lead_id join company_retailer_locations a on a.id = l.assignee_id where a.retailer_location_id = ($1).id' },
  ],
  from: 'lead_activities la',
  alias: 'la',
  // Only what reads the lead joins it (its creator): the owner and assignee keys are kept on the activity.
  joins: [{ alias: 'l', sql: 'join leads l on l.id = la.lead_id' }],
  // Kept by triggers (Migration20261129110000_lead_activity_owner_counts): an owner admin's unfiltered total.
  counts: { table: 'lead_activity_counts', fields: ['owner_company_id', 'owner_retailer_id'] },
  fields: {
    id: { sql: 'la.id', type: 'uuid' },
    lead_id: { sql: 'la.lead_id', type: 'uuid' },
    type: { sql: 'la.type', type: 'string', text: true },
    crm_provider: { sql: 'la.crm_provider', type: 'string', text: true },
    crm_id: { sql: 'la.crm_id', type: 'string', text: true },
    source_type: { sql: 'la.source_type', type: 'string' },
    source_id: { sql: 'la.source_id', type: 'uuid' },
    created_at: { sql: 'la.created_at', type: 'date' },
    updated_at: { sql: 'la.updated_at', type: 'date' },
    ...ownerFields('la'),
    ...assigneeFields('la'),
    ...beyondOwnerFields('la'),
  },
};

/** Company retailer locations as a possible assignee (`crlScope` with the `assignee_` prefix). */
export const assigneeSearch: SearchDocument = {
  name: 'lead_assignees',
  from: `company_retailer_locations a ${ASSIGNEE.joins}`,
  alias: 'a',
  fields: ASSIGNEE.fields,
};


/** Who sees a Lead wherever it is reached (src/access/visibility.ts): its policy's scope. */
export const leadVisible = visibleType('Lead', Lead, leadSearch, leadPolicy);
