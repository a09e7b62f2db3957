import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { world, type World } from '../support/network';
import { Role } from '../../src/modules/user/role';

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
}

/** What the walk needs to know about one resource. */
interface Scenario {
  path: string;
  root: string;
  plural: string;
  /** A record the role sees (for destroy: one it could destroy if allowed). */
  inScope(x: Fixture, role: Role, action: Action): Promise<string> | string;
  /** The nearest record the role does not see, or null when there is none. */
  outOfScope(x: Fixture, role: Role): string | null;
  createBody(x: Fixture, role: Role, inScope: boolean): Promise<Record<string, unknown>> | Record<string, unknown>;
  updateBody: Record<string, unknown>;
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

const scenarios: Record<string, Scenario> = {
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
    updateBody: { company_retailer: { name: 'Matrix' } },
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
    updateBody: { company_retailer_location: { receiving_leads: false } },
  },
  products: {
    path: '/v1/products',
    root: 'product',
    plural: 'products',
    inScope: (x) => x.productA.id,
    outOfScope: (x, role) => (isCompanyUser(role) || role === Role.PlatformOperator ? x.productB.id : null),
    createBody: (x, _role, inScope) => ({ product: { sku: `M-${Math.random()}`, name: 'Matrix', ...(inScope ? {} : { company_id: x.B.id }) } }),
    updateBody: { product: { name: 'Matrix' } },
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

test('the matrix covers every role for every resource and action it names, once', () => {
  const keys = rows.map((r) => `${r.resource}.${r.action}`);
  expect(new Set(keys).size).toBe(keys.length);
  for (const resource of ['leads', 'lead_activities', 'company_retailers', 'company_retailer_locations', 'products']) {
    const actions = rows.filter((r) => r.resource === resource).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['list', 'show', 'create', 'update', 'destroy']));
  }
});

for (const row of rows) {
  const scenario = scenarios[row.resource];
  if (!scenario) {
    test.todo(`${row.resource} ${row.action}: add a scenario to walk these rows`);
    continue;
  }
  describe(`${row.resource} ${row.action}`, () => {
    test.each(Object.values(Role))('%s', async (role) => {
      const expected = row.cells[role];
      // Reads share one network; writes get a fresh one so that each case starts from the same state.
      const x = row.action === 'list' || row.action === 'show' ? shared : await fixture(t.em());
      const key = x.keys[role];
      const out = scenario.outOfScope(x, role);
      if (row.action !== 'list' && row.action !== 'create') {
        expect({ outOfScopeExists: out !== null }).toEqual({ outOfScopeExists: expected.outOfScope !== null });
      }

      if (row.action === 'list') {
        const res = await api(t, 'get', `${scenario.path}?opts[per_page]=500`, { key });
        expect(res.status).toBe(expected.inScope);
        if (res.status === 200) {
          const listed = res.body[scenario.plural].map((r: { id: string }) => r.id);
          expect(listed).toContain(await scenario.inScope(x, role, 'list'));
          if (out) expect(listed).not.toContain(out);
        }
        return;
      }
      if (row.action === 'create') {
        const outside = await api(t, 'post', scenario.path, { key, body: await scenario.createBody(x, role, false) });
        expect({ outOfScope: outside.status }).toEqual({ outOfScope: expected.outOfScope });
        const inside = await api(t, 'post', scenario.path, { key, body: await scenario.createBody(x, role, true) });
        expect({ inScope: inside.status }).toEqual({ inScope: expected.inScope });
        return;
      }
      const method = METHOD[row.action];
      const body = method === 'patch' || method === 'put' ? scenario.updateBody : undefined;
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
