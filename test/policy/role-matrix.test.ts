import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { world, type World } from '../support/network';
import { quoteRequest } from '../support/leads';
import { Role } from '../../src/modules/user/role';
import { Lead } from '../../src/modules/lead/lead.entity';
import { LeadActivity } from '../../src/modules/lead/lead-activity.entity';
import { Email } from '../../src/modules/contact/email.entity';
import { CompanyRetailerLocation } from '../../src/modules/company-retailer-location/company-retailer-location.entity';
import { CompanyStoreType } from '../../src/modules/company-store-type/company-store-type.entity';
import { Company } from '../../src/modules/company/company.entity';
import { can, type Action as PolicyAction, type ResourcePolicy } from '../../src/access/policy';
import { leadActivityPolicy, leadPolicy } from '../../src/modules/lead/lead.policy';
import { companyRetailerPolicy } from '../../src/modules/company-retailer/company-retailer.policy';
import { crlPolicy } from '../../src/modules/company-retailer-location/company-retailer-location.policy';
import { productPolicy } from '../../src/modules/product/product.policy';

/**
 * Walks the status matrix of docs/roles.md over HTTP. The expected statuses come from the document; this
 * file only knows, per resource, which record is in and out of each role's scope and what to send.
 */

type Action = 'list' | 'show' | 'create' | 'update' | 'replace' | 'destroy';
type Status = number | null; // null: no record lies out of scope (`—`)
interface Cell {
  inScope: Status;
  outOfScope: Status;
}
interface Row {
  resource: string;
  action: Action;
  cells: Record<Role, Cell>;
}

function parseStatus(text: string): Status {
  if (text === '—') return null;
  if (!/^\d{3}$/.test(text)) throw new Error(`roles.md: bad status ${text}`);
  return Number(text);
}

/** The `## Status matrix` table of docs/roles.md. */
function readMatrix(file = path.join(__dirname, '..', '..', 'docs', 'roles.md')): Row[] {
  const section = fs.readFileSync(file, 'utf8').split(/^## /m).find((s) => s.startsWith('Status matrix'));
  if (!section) throw new Error('roles.md: no "Status matrix" section');
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const split = (l: string) => l.split('|').slice(1, -1).map((c) => c.trim());
  const [header, , ...body] = lines;
  const roles = split(header).slice(2) as Role[];
  expect([...roles].sort()).toEqual(Object.values(Role).sort());
  return body.map((line) => {
    const [resource, action, ...cells] = split(line);
    return {
      resource,
      action: action as Action,
      cells: Object.fromEntries(
        roles.map((role, i) => {
          const [a, b] = cells[i].split('/').map((s) => s.trim());
          return [role, { inScope: parseStatus(a), outOfScope: b === undefined ? parseStatus(a) : parseStatus(b) }];
        }),
      ) as Record<Role, Cell>,
    };
  });
}

interface Fixture extends World {
  em: EntityManager;
  productA: { id: string };
  productB: { id: string };
  /** Leads (with an email and a note) by the name of the CRL they are assigned to; made on first use. */
  leads?: Promise<Record<string, { lead: string; activity: string }>>;
}

/** What the walk needs to know about one resource. */
interface Scenario {
  path: string;
  root: string;
  plural: string;
  /** A record the role sees (for destroy: one it could destroy if allowed). */
  inScope(x: Fixture, role: Role, action: Action): Promise<string> | string;
  /** The nearest record the role does not see, or null when there is none. */
  outOfScope(x: Fixture, role: Role): Promise<string | null> | string | null;
  createBody(x: Fixture, role: Role, inScope: boolean): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The body of PATCH and PUT (a PUT body is the whole record). */
  updateBody(x: Fixture): Record<string, unknown>;
  /** The 422 detail a create out of scope gives, where the matrix says 422. */
  createOutOfScopeDetail?: { field: string; code: string };
}

const COMPANY_RETAILER_OUT: Partial<Record<Role, keyof World>> = { [Role.CompanyAdmin]: 'crB' };
const CRL_OUT: Record<Role, keyof World> = {
  [Role.CompanyAdmin]: 'crlB',
  [Role.CompanyTerritoryManager]: 'crlSouth',
  [Role.CompanyRetailerManager]: 'crlOtherRetailer',
  [Role.CompanyLocationUser]: 'crlSameCr',
  [Role.CompanySalesAssociate]: 'crlSameCr',
  [Role.RetailerAdmin]: 'crlOtherRetailer',
  [Role.RetailerStoreManager]: 'crlSameCr',
  [Role.PlatformOperator]: 'crlB',
};
const id = (x: Fixture, name: keyof World) => (x[name] as { id: string }).id;
const isCompanyUser = (role: Role) => role.startsWith('company_');

/**
 * A lead of the CRL's company assigned to each CRL a walk uses: `crlIn` (seen by every network role) and
 * every role's nearest CRL out of scope, so that the lead is out of scope only through its assignee.
 */
function leadsOf(x: Fixture) {
  x.leads ??= (async () => {
    const out: Record<string, { lead: string; activity: string }> = {};
    for (const name of new Set<keyof World>(['crlIn', ...Object.values(CRL_OUT)])) {
      const crl = x[name] as CompanyRetailerLocation;
      const lead = x.em.create(Lead, { name: `Lead at ${name}`, ownerCompany: crl.company, assignee: crl });
      x.em.create(Email, { email: `${name}.${Math.random()}@example.com`, lead });
      const activity = x.em.create(LeadActivity, { lead, type: 'LeadActivity::Note', data: { body: 'Called back' } });
      await x.em.flush();
      out[name] = { lead: lead.id, activity: activity.id };
    }
    return out;
  })();
  return x.leads;
}

const scenarios: Record<string, Scenario> = {
  leads: {
    path: '/v1/leads',
    root: 'lead',
    plural: 'leads',
    inScope: async (x) => (await leadsOf(x)).crlIn.lead,
    outOfScope: async (x, role) => (await leadsOf(x))[CRL_OUT[role]].lead,
    // SPEC 4.3 rule 3: an assignee the role does not see is 403.
    createBody: (x, role, inScope) => quoteRequest({ assignee_type: 'CompanyRetailerLocation', assignee_id: id(x, inScope ? 'crlIn' : CRL_OUT[role]) }),
    updateBody: (x) => ({
      lead: {
        name: 'Matrix',
        status: 'Contacted',
        emails: [{ email: 'matrix@example.com' }],
        assignee_type: 'CompanyRetailerLocation',
        assignee_id: x.crlIn.id,
      },
    }),
  },
  // SPEC 2.2: an activity is authorized through its lead.
  lead_activities: {
    path: '/v1/lead_activities',
    root: 'lead_activity',
    plural: 'lead_activities',
    inScope: async (x) => (await leadsOf(x)).crlIn.activity,
    outOfScope: async (x, role) => (await leadsOf(x))[CRL_OUT[role]].activity,
    async createBody(x, role, inScope) {
      const leads = await leadsOf(x);
      return { lead_activity: { lead_id: leads[inScope ? 'crlIn' : CRL_OUT[role]].lead, type: 'LeadActivity::OutboundCall', data: { transcript: 'Hi' } } };
    },
    updateBody: () => ({ lead_activity: { crm_id: 'SF-1', crm_provider: 'salesforce', crm_data_cache: { stage: 'won' } } }),
    // A lead the role does not see is, to an activity, a lead that does not exist.
    createOutOfScopeDetail: { field: 'lead_id', code: 'invalid' },
  },
  company_retailers: {
    path: '/v1/company_retailers',
    root: 'company_retailer',
    plural: 'company_retailers',
    async inScope(x, role, action) {
      // Only a company retailer without stores can be destroyed; the company admin sees such a one.
      if (action === 'destroy' && role === Role.CompanyAdmin) return (await f.companyRetailer(x.em, x.A, await f.retailer(x.em))).id;
      return x.crA.id;
    },
    outOfScope: (x, role) => id(x, COMPANY_RETAILER_OUT[role] ?? 'crA2'),
    async createBody(x, _role, inScope) {
      const seller = await f.retailer(x.em);
      return { company_retailer: { retailer_id: seller.id, ...(inScope ? {} : { company_id: x.B.id }) } };
    },
    updateBody: () => ({ company_retailer: { name: 'Matrix' } }),
  },
  company_retailer_locations: {
    path: '/v1/company_retailer_locations',
    root: 'company_retailer_location',
    plural: 'company_retailer_locations',
    inScope: (x) => x.crlIn.id,
    outOfScope: (x, role) => id(x, CRL_OUT[role]),
    createBody: (x, role, inScope) => ({
      company_retailer_location: {
        company_retailer_id: inScope ? x.crA.id : role === Role.CompanyRetailerManager ? x.crA2.id : x.crB.id,
        name: 'Matrix',
      },
    }),
    updateBody: () => ({ company_retailer_location: { receiving_leads: false } }),
  },
  products: {
    path: '/v1/products',
    root: 'product',
    plural: 'products',
    inScope: (x) => x.productA.id,
    outOfScope: (x, role) => (isCompanyUser(role) || role === Role.PlatformOperator ? x.productB.id : null),
    createBody: (x, _role, inScope) => ({ product: { sku: `M-${Math.random()}`, name: 'Matrix', ...(inScope ? {} : { company_id: x.B.id }) } }),
    updateBody: () => ({ product: { name: 'Matrix' } }),
  },
};

async function fixture(em: EntityManager): Promise<Fixture> {
  const w = await world(em);
  const productA = await f.product(em, w.A);
  const productB = await f.product(em, w.B);
  return { ...w, em, productA, productB };
}

const METHOD: Record<Exclude<Action, 'list' | 'create'>, 'get' | 'patch' | 'put' | 'delete'> = {
  show: 'get',
  update: 'patch',
  replace: 'put',
  destroy: 'delete',
};

let t: TestApp;
let shared: Fixture;
beforeAll(async () => {
  t = await createTestApp();
  shared = await fixture(t.em());
});
afterAll(() => t.close());

const rows = readMatrix();

test('the matrix covers every role for every resource and action it names, once, and each resource is walked', () => {
  const keys = rows.map((r) => `${r.resource}.${r.action}`);
  expect(new Set(keys).size).toBe(keys.length);
  for (const resource of ['leads', 'lead_activities', 'company_retailers', 'company_retailer_locations', 'products']) {
    const actions = rows.filter((r) => r.resource === resource).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['list', 'show', 'create', 'update', 'destroy']));
  }
  expect(Object.keys(scenarios).sort()).toEqual([...new Set(rows.map((r) => r.resource))].sort());
});

/** Each resource's policy: the matrix is checked against what it answers (`can`, src/access/policy.ts). */
const POLICIES: Record<string, ResourcePolicy<any, any>> = {
  leads: leadPolicy,
  lead_activities: leadActivityPolicy,
  company_retailers: companyRetailerPolicy,
  company_retailer_locations: crlPolicy,
  products: productPolicy,
};

test('for a record in scope, the matrix allows exactly what the policies answer', () => {
  for (const row of rows) {
    const asked: PolicyAction = row.action === 'replace' ? 'update' : row.action;
    for (const role of Object.values(Role)) {
      const cell = `${row.resource} ${row.action} ${role}`;
      const caller = { userId: 'u', role, companyId: null, retailerId: null, territoryId: null, companyRetailerIds: [], companyRetailerLocationIds: [], retailerLocationIds: [] };
      expect({ cell, allowed: (row.cells[role].inScope ?? 0) < 300 }).toEqual({ cell, allowed: can(caller, asked, POLICIES[row.resource]) });
    }
  }
});

const ids = (res: { body: Record<string, unknown> }, plural: string) => (res.body[plural] as Array<{ id: string }>).map((r) => r.id);

for (const row of rows) {
  const scenario = scenarios[row.resource];
  if (!scenario) continue; // the coverage test above fails
  describe(`${row.resource} ${row.action}`, () => {
    test.each(Object.values(Role))('%s', async (role) => {
      const expected = row.cells[role];
      // Reads share one network; writes get a fresh one so that each case starts from the same state.
      const x = row.action === 'list' || row.action === 'show' ? shared : await fixture(t.em());
      const key = x.keys[role];
      const out = await scenario.outOfScope(x, role);
      if (row.action !== 'list' && row.action !== 'create') {
        expect({ outOfScopeExists: out !== null }).toEqual({ outOfScopeExists: expected.outOfScope !== null });
      }

      if (row.action === 'list') {
        const res = await api(t, 'get', `${scenario.path}?opts[per_page]=500`, { key });
        expect(res.status).toBe(expected.inScope);
        if (res.status !== 200) return;
        const inside = await scenario.inScope(x, role, 'list');
        const listed = ids(res, scenario.plural);
        expect(listed).toContain(inside);
        if (out) expect(listed).not.toContain(out);
        expect(res.body.meta.total).toBe(listed.length);
        // Asked for both by id, the list and its total hold only the one in scope.
        const both = [inside, ...(out ? [out] : [])].map((i) => `opts[where][id][]=${i}`).join('&');
        const pair = await api(t, 'get', `${scenario.path}?${both}`, { key });
        expect({ ids: ids(pair, scenario.plural), total: pair.body.meta.total }).toEqual({ ids: [inside], total: 1 });
        return;
      }
      if (row.action === 'create') {
        const outside = await api(t, 'post', scenario.path, { key, body: await scenario.createBody(x, role, false) });
        expect({ outOfScope: outside.status }).toEqual({ outOfScope: expected.outOfScope });
        if (outside.status === 422) {
          expect(scenario.createOutOfScopeDetail).toBeDefined();
          expect(outside.body.details).toEqual([expect.objectContaining(scenario.createOutOfScopeDetail)]);
        }
        const inside = await api(t, 'post', scenario.path, { key, body: await scenario.createBody(x, role, true) });
        expect({ inScope: inside.status }).toEqual({ inScope: expected.inScope });
        return;
      }
      const method = METHOD[row.action];
      const body = method === 'patch' || method === 'put' ? scenario.updateBody(x) : undefined;
      if (out) {
        const outside = await api(t, method, `${scenario.path}/${out}`, { key, body });
        expect({ outOfScope: outside.status }).toEqual({ outOfScope: expected.outOfScope });
      }
      const target = await scenario.inScope(x, role, row.action);
      const inside = await api(t, method, `${scenario.path}/${target}`, { key, body });
      expect({ inScope: inside.status }).toEqual({ inScope: expected.inScope });
    });
  });
}

// ---- Beyond the matrix: every path that reaches a record applies that record type's own scope ----------
//
// Each test walks every network role over the shared network (plus a store type per company and a store
// of a retailer company A does not work with) and collects what the role learns beyond its scope; the
// list must be empty. See docs/roles.md, "Visible wherever it is reached".

const NETWORK_ROLES = Object.values(Role).filter((r) => r !== Role.PlatformOperator);

/** Ids of a GraphQL page, or [] when the field failed (e.g. FORBIDDEN). */
const nodeIds = (page: { nodes: Array<{ id: string }> } | null | undefined) => new Set((page?.nodes ?? []).map((n) => n.id));

async function gqlData(key: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await gql(t, key, query, variables);
  return { data: res.body.data ?? {}, errors: (res.body.errors ?? []) as Array<{ path?: string[]; extensions?: { code?: string } }> };
}

/** What the role sees at the roots of each record type. */
async function roots(key: string) {
  const { data } = await gqlData(
    key,
    `{ companies(perPage: 500) { nodes { id } } retailers(perPage: 500) { nodes { id } }
       retailerLocations(perPage: 500) { nodes { id } } territories(perPage: 500) { nodes { id name } }
       companyStoreTypes(perPage: 500) { nodes { id name } } companyRetailers(perPage: 500) { nodes { id } }
       companyRetailerLocations(perPage: 500) { nodes { id companyRetailerId: companyRetailer { id } } }
       leads(perPage: 500) { nodes { id } } }`,
  );
  return {
    Company: nodeIds(data.companies),
    Retailer: nodeIds(data.retailers),
    RetailerLocation: nodeIds(data.retailerLocations),
    Territory: nodeIds(data.territories),
    territoryNames: new Set<string>((data.territories?.nodes ?? []).map((n: { name: string }) => n.name)),
    CompanyStoreType: nodeIds(data.companyStoreTypes),
    storeTypeNames: new Set<string>((data.companyStoreTypes?.nodes ?? []).map((n: { name: string }) => n.name)),
    CompanyRetailer: nodeIds(data.companyRetailers),
    CompanyRetailerLocation: nodeIds(data.companyRetailerLocations),
    crls: (data.companyRetailerLocations?.nodes ?? []) as Array<{ id: string; companyRetailerId: { id: string } | null }>,
    Lead: nodeIds(data.leads),
  };
}

describe('visible wherever it is reached', () => {
  let extra: { storeA: string; storeB: string; farStore: string };
  beforeAll(async () => {
    const em = t.em();
    const storeA = em.create(CompanyStoreType, { company: em.getReference(Company, shared.A.id), name: 'Flagship A', boost: 3 });
    const storeB = em.create(CompanyStoreType, { company: em.getReference(Company, shared.B.id), name: 'Flagship B', boost: 7 });
    await em.flush();
    await em.nativeUpdate(CompanyRetailerLocation, { id: [shared.crlIn.id, shared.crlSouth.id] }, { companyStoreType: storeA.id });
    await em.nativeUpdate(CompanyRetailerLocation, { id: shared.crlB.id }, { companyStoreType: storeB.id });
    const far = await f.retailerLocation(em, await f.retailer(em, 'Faraway Goods'));
    await leadsOf(shared);
    extra = { storeA: storeA.id, storeB: storeB.id, farStore: far.id };
  });

  test('nested GraphQL fields resolve only to records the role sees at their roots (else null)', async () => {
    const leaks: string[] = [];
    for (const role of NETWORK_ROLES) {
      const key = shared.keys[role];
      const seen = await roots(key);
      const { data, errors } = await gqlData(
        key,
        `{ companyRetailerLocations(perPage: 500) { nodes { id territory { id name } companyStoreType { id name boost }
             company { id } companyRetailer { id } retailerLocation { id retailer { id } } } }
           companyRetailers(perPage: 500) { nodes { id territory { id name } company { id } retailer { id } } }
           leadActivities(perPage: 500) { nodes { id lead { id } } }
           territories(perPage: 500) { nodes { company { id } } }
           companyStoreTypes(perPage: 500) { nodes { company { id } } }
           retailerLocations(perPage: 500) { nodes { retailer { id } } } }`,
      );
      expect({ role, errors }).toEqual({ role, errors: [] });
      const check = (path: string, kind: keyof typeof seen, value: { id: string } | null | undefined) => {
        if (value && !(seen[kind] as Set<string>).has(value.id)) leaks.push(`${role} ${path} -> ${kind} ${value.id}`);
      };
      for (const n of data.companyRetailerLocations.nodes) {
        check('CRL.territory', 'Territory', n.territory);
        check('CRL.companyStoreType', 'CompanyStoreType', n.companyStoreType);
        check('CRL.company', 'Company', n.company);
        check('CRL.companyRetailer', 'CompanyRetailer', n.companyRetailer);
        check('CRL.retailerLocation', 'RetailerLocation', n.retailerLocation);
        check('CRL.retailerLocation.retailer', 'Retailer', n.retailerLocation?.retailer);
      }
      for (const n of data.companyRetailers.nodes) {
        check('CR.territory', 'Territory', n.territory);
        check('CR.company', 'Company', n.company);
        check('CR.retailer', 'Retailer', n.retailer);
      }
      for (const n of data.leadActivities.nodes) check('LeadActivity.lead', 'Lead', n.lead);
      for (const n of data.territories.nodes) check('Territory.company', 'Company', n.company);
      for (const n of data.companyStoreTypes.nodes) check('CompanyStoreType.company', 'Company', n.company);
      for (const n of data.retailerLocations.nodes) check('RetailerLocation.retailer', 'Retailer', n.retailer);
      // The same through the REST include of a company retailer (SPEC 2.4 embeds the territory).
      const show = await api(t, 'get', `/v1/company_retailers/${shared.crA.id}`, { key });
      check('REST company_retailer.territory', 'Territory', show.body.territory);
    }
    expect(leaks).toEqual([]);
    // Still answered where the role sees them: the company admin reads its territory and store type.
    const { data } = await gqlData(shared.keys.company_admin, `query($id: ID!) { companyRetailerLocation(id: $id) { territory { id } companyStoreType { id boost } } }`, {
      id: shared.crlIn.id,
    });
    expect(data.companyRetailerLocation).toEqual({ territory: { id: shared.north.id }, companyStoreType: { id: extra.storeA, boost: 3 } });
  });

  test('nested visibility is set-based: the statements of a page do not grow with its size', async () => {
    const query = `query($n: Int) { companyRetailerLocations(perPage: $n) { nodes { territory { id } companyStoreType { id }
        company { id } companyRetailer { id retailerLocationsCount territory { id } } retailerLocation { id retailer { id } } } }
      leadActivities(perPage: $n) { nodes { lead { id } } } }`;
    const count = async () => {
      t.resetStatements();
      const { data, errors } = await gqlData(shared.keys.company_admin, query, { n: 500 });
      expect(errors).toEqual([]);
      return { rows: data.companyRetailerLocations.nodes.length, statements: t.statements.length };
    };
    const before = await count();
    const em = shared.em;
    for (let i = 0; i < 10; i++) {
      const crl = await f.crl(em, shared.crA, { territory: shared.north, companyStoreType: em.getReference(CompanyStoreType, extra.storeA) });
      const lead = em.create(Lead, { name: `More ${i}`, ownerCompany: shared.A, assignee: crl });
      em.create(LeadActivity, { lead, type: 'LeadActivity::Note', data: { body: 'x' } });
    }
    await em.flush();
    const after = await count();
    expect(after.rows).toBe(before.rows + 10);
    expect(after.statements).toBe(before.statements);
  });

  test('facets and filters name only records the role sees', async () => {
    const leaks: string[] = [];
    for (const role of NETWORK_ROLES) {
      const key = shared.keys[role];
      const seen = await roots(key);
      const allowed: Record<string, Set<string>> = {
        crl_id: seen.CompanyRetailerLocation,
        crl_company_retailer_id: seen.CompanyRetailer,
        crl_retailer_location_id: seen.RetailerLocation,
        crl_territory_id: seen.Territory,
        crl_retailer_id: seen.Retailer,
        crl_company_id: seen.Company,
        company_store_type_id: seen.CompanyStoreType,
        store_type: seen.storeTypeNames,
        territory_name: seen.territoryNames,
      };
      const fields = Object.keys(allowed);
      const rest = await api(t, 'get', `/v1/company_retailers?${fields.map((a) => `opts[aggs][]=${a}`).join('&')}`, { key });
      expect(rest.status).toBe(200);
      for (const field of fields) {
        for (const b of rest.body.meta.aggs[field]?.buckets ?? []) if (!allowed[field].has(String(b.key))) leaks.push(`${role} company_retailers aggs ${field}: ${b.key}`);
      }
      const crlAggs = await api(t, 'get', '/v1/company_retailer_locations?opts[aggs][]=store_type&opts[aggs][]=territory_name', { key });
      for (const b of crlAggs.body.meta.aggs.store_type?.buckets ?? []) if (!seen.storeTypeNames.has(b.key)) leaks.push(`${role} crl aggs store_type: ${b.key}`);
      for (const b of crlAggs.body.meta.aggs.territory_name?.buckets ?? []) if (!seen.territoryNames.has(b.key)) leaks.push(`${role} crl aggs territory_name: ${b.key}`);
      // A filter on a hidden store is no existence test.
      const hidden = id(shared, CRL_OUT[role]);
      const probe = await api(t, 'get', `/v1/company_retailers?opts[where][crl_id]=${hidden}`, { key });
      if (probe.body.meta.total !== 0) leaks.push(`${role} company_retailers where crl_id=${CRL_OUT[role]}: ${probe.body.meta.total}`);
      // The ids that scope companies, retailers and their locations to each other are the scope's own
      // (`scopeOnly`): the typed GraphQL arguments have no name for them, so no facet can list them.
      const gq = await gqlData(
        key,
        `{ companies(aggs: [{field: RETAILER_IDS}]) { meta { total } } retailers(aggs: [{field: COMPANY_IDS}]) { meta { total } }
           retailerLocations(aggs: [{field: COMPANY_IDS}]) { meta { total } } }`,
      );
      expect(gq.errors.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_VALIDATION_FAILED']);
    }
    expect(leaks).toEqual([]);
  });

  test('retailer_locations_count counts only the stores the role sees (REST and GraphQL)', async () => {
    const wrong: string[] = [];
    for (const role of NETWORK_ROLES) {
      const key = shared.keys[role];
      const seen = await roots(key);
      const expected = (cr: string) => seen.crls.filter((c) => c.companyRetailerId?.id === cr).length;
      const rest = await api(t, 'get', '/v1/company_retailers?opts[per_page]=500', { key });
      for (const cr of rest.body.company_retailers) {
        if (cr.retailer_locations_count !== expected(cr.id)) wrong.push(`${role} REST ${cr.id}: ${cr.retailer_locations_count} for ${expected(cr.id)}`);
      }
      const { data } = await gqlData(key, '{ companyRetailers(perPage: 500) { nodes { id retailerLocationsCount } } }');
      for (const cr of data.companyRetailers.nodes) {
        if (cr.retailerLocationsCount !== expected(cr.id)) wrong.push(`${role} GraphQL ${cr.id}: ${cr.retailerLocationsCount} for ${expected(cr.id)}`);
      }
      expect(seen.CompanyRetailer.size).toBeGreaterThan(0);
    }
    expect(wrong).toEqual([]);
  });

  test('every id a write names must be one the role sees: an unseen one is answered as an unknown one', async () => {
    const x = await fixture(t.em());
    const em = t.em();
    const storeB = em.create(CompanyStoreType, { company: em.getReference(Company, x.B.id), name: 'Flagship B' });
    await em.flush();
    const far = await f.retailerLocation(em, await f.retailer(em, 'Faraway Goods'));
    const unknown = '00000000-0000-4000-8000-000000000000';
    const differ: string[] = [];
    const same = (what: string, a: { status: number; body: unknown }, b: { status: number; body: unknown }) => {
      const strip = (r: { status: number; body: any }) => ({ status: r.status, details: r.body?.details?.map((d: any) => [d.field, d.code, d.message]) });
      if (JSON.stringify(strip(a)) !== JSON.stringify(strip(b))) differ.push(`${what}: ${JSON.stringify(strip(a))} vs unknown ${JSON.stringify(strip(b))}`);
    };
    for (const role of NETWORK_ROLES) {
      const key = x.keys[role];
      const visibleCrs = ids(await api(t, 'get', '/v1/company_retailers?opts[per_page]=500', { key }), 'company_retailers');
      const unseen = [x.crA, x.crA2, x.crB].filter((cr) => !visibleCrs.includes(cr.id));
      for (const cr of unseen) {
        const post = await api(t, 'post', '/v1/company_retailer_locations', { key, body: { company_retailer_location: { company_retailer_id: cr.id, name: 'x' } } });
        const postUnknown = await api(t, 'post', '/v1/company_retailer_locations', { key, body: { company_retailer_location: { company_retailer_id: unknown, name: 'x' } } });
        same(`${role} POST CRL under unseen CR`, post, postUnknown);
        if (post.status < 300) differ.push(`${role} created a CRL under unseen ${cr.id}`);
        const move = await api(t, 'patch', `/v1/company_retailer_locations/${x.crlIn.id}`, { key, body: { company_retailer_location: { company_retailer_id: cr.id } } });
        const moveUnknown = await api(t, 'patch', `/v1/company_retailer_locations/${x.crlIn.id}`, { key, body: { company_retailer_location: { company_retailer_id: unknown } } });
        same(`${role} PATCH CRL onto unseen CR`, move, moveUnknown);
        const after = await api(t, 'get', `/v1/company_retailers/${cr.id}`, { key });
        if (after.status !== 404) differ.push(`${role} now sees ${cr.id} (${after.status})`);
        const graph = await gqlData(key, 'mutation($i: CompanyRetailerLocationInput!) { createCompanyRetailerLocation(input: $i) { id } }', {
          i: { companyRetailerId: cr.id, name: 'x' },
        });
        if (!graph.errors.length) differ.push(`${role} GraphQL created a CRL under unseen ${cr.id}`);
      }
      // Another company's store type, a store of a retailer the company does not work with.
      for (const [field, hidden] of [
        ['company_store_type_id', storeB.id],
        ['retailer_location_id', far.id],
      ] as const) {
        const body = (v: string) => ({ company_retailer_location: { [field]: v } });
        same(
          `${role} PATCH CRL ${field}`,
          await api(t, 'patch', `/v1/company_retailer_locations/${x.crlIn.id}`, { key, body: body(hidden) }),
          await api(t, 'patch', `/v1/company_retailer_locations/${x.crlIn.id}`, { key, body: body(unknown) }),
        );
      }
    }
    expect(differ).toEqual([]);
  });
});
