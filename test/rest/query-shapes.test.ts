import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { assertMatchesOpenApi } from '../support/openapi';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';

/**
 * Issue 40: every query parameter of every route, sent in a shape it cannot mean (an object, a nested
 * object, several values where one is expected, a prototype name as a key), is a 400 in that route's own
 * envelope, never a 5xx; the shapes a parameter does take (repeated values of a list, nested `opts`)
 * stay accepted. The routes and their parameters are read from the committed OpenAPI document, so a new
 * route or parameter is covered without touching this file.
 */
let t: TestApp;
let key: string;
let companyId: string;
beforeAll(async () => {
  t = await createTestApp();
  const company = await f.company(t.em());
  companyId = company.id;
  key = (await f.userWithKey(t.em(), Role.CompanyAdmin, company)).key;
});
afterAll(() => t.close());

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: string;
  style?: string;
  schema: Schema;
}
interface Route {
  method: string;
  template: string;
  /** The query parameters, path-level ones included. */
  parameters: Parameter[];
  /** The list's fields (`x-leadnet-fields`), for `opts` that a field name must fill. */
  fields?: { where: string[]; order: string[] };
  /** The 400 the route answers in its own envelope: the store locator's or the generic one. */
  storeLocator400: boolean;
  /** No API key (`security: []`). */
  public: boolean;
}

const DOCUMENT = JSON.parse(readFileSync(join(__dirname, '../../schema/openapi.json'), 'utf8'));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(node: Schema): Schema {
  if (typeof node.$ref !== 'string') return node;
  const target = node.$ref.replace(/^#\//, '').split('/').reduce((at: Schema, part: string) => at[part], DOCUMENT);
  return resolve(target);
}

function routes(): Route[] {
  const out: Route[] = [];
  for (const [template, item] of Object.entries<Schema>(DOCUMENT.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const operation = item[method];
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve).filter((p): p is Parameter => p.in === 'query');
      const plain = (names: string[] = []) => names.filter((n) => !n.includes(' '));
      const fields = operation['x-leadnet-fields'];
      out.push({
        method,
        template,
        parameters,
        fields: fields && { where: plain(fields.where), order: plain(fields.order) },
        storeLocator400: JSON.stringify(resolve(operation.responses?.['400'] ?? {})).includes('StoreLocatorBadRequestError'),
        public: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return out;
}

const ROUTES = routes().filter((r) => r.parameters.length > 0);

/**
 * What a request needs besides the parameter under test to be answered at all: the store locator a
 * company (by header, so that `cc_id` is free to test) and a point, or a box when the point is tested.
 */
function baseOf(route: Route, tested: string): { query: Record<string, string>; headers: Record<string, string> } {
  if (route.template !== '/store_locator') return { query: {}, headers: {} };
  const point = { latitude: '45.5', longitude: '-122.6' };
  const box = { top_left_latitude: '46', top_left_longitude: '-123', bottom_right_latitude: '45', bottom_right_longitude: '-122' };
  return { query: tested in point ? box : point, headers: { 'X-Cc-Id': companyId } };
}

type Kind = 'one' | 'many' | 'object';

/** A parameter's shape as the document declares it: one value, a list of values, or an object. */
function kindOf(schema: Schema): Kind {
  const types = [schema.type, ...(schema.oneOf ?? schema.anyOf ?? []).map((s: Schema) => s.type)].filter(Boolean);
  if (types.includes('object')) return 'object';
  if (types.includes('array')) return 'many';
  return 'one';
}

/** Shapes a parameter `p` of this schema cannot mean, as query string text. */
function wrongShapes(p: string, schema: Schema, fields: Route['fields']): Array<[string, string]> {
  const shapes: Array<[string, string]> = [
    ['prototype key __proto__', `${p}[__proto__]=x`],
    ['prototype key __proto__, nested', `${p}[__proto__][x]=1`],
    ['prototype key constructor', `${p}[constructor]=1`],
    ['prototype key toString', `${p}[toString]=1`],
  ];
  const kind = kindOf(schema);
  if (kind === 'one') {
    shapes.push(['an object', `${p}[a]=b`], ['a nested object', `${p}[a][b]=c`], ['an array', `${p}[]=a&${p}[]=b`], ['repeated', `${p}=a&${p}=b`]);
  }
  if (kind === 'many') shapes.push(['an object', `${p}[a]=b`], ['a nested object', `${p}[a][b]=c`], ['a list of objects', `${p}[][a]=b`]);
  if (kind === 'object') {
    shapes.push(['a string', `${p}=a`], ['an array', `${p}[]=a&${p}[]=b`]);
    for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
      const inner = `${p}[${name}]`;
      shapes.push(
        [`${name}: prototype key toString`, `${inner}[toString]=1`],
        [`${name}: prototype key __proto__`, `${inner}[__proto__][x]=1`],
        [`${name}: prototype key constructor`, `${inner}[constructor]=1`],
      );
      if (kindOf(property) === 'one') {
        shapes.push(
          [`${name}: an object`, `${inner}[a]=1`],
          [`${name}: a nested object`, `${inner}[a][b]=1`],
          [`${name}: an array`, `${inner}[]=1&${inner}[]=2`],
          [`${name}: repeated`, `${inner}=1&${inner}=2`],
        );
      }
      // `{field: direction}`: a direction is one value.
      const valued = (property.oneOf ?? []).find((s: Schema) => s.type === 'object' && s.additionalProperties?.type === 'string');
      const field = fields?.order[0];
      if (valued && field) {
        shapes.push([`${name}: an object for a value`, `${inner}[${field}][a]=desc`], [`${name}: an array for a value`, `${inner}[${field}][]=desc`]);
      }
    }
  }
  return shapes;
}

/** Shapes a parameter does take: repeated values of a list, `opts` nested as PRODUCT.md 6 says. */
function acceptedShapes(p: string, schema: Schema, fields: Route['fields']): Array<[string, string]> {
  const kind = kindOf(schema);
  if (kind === 'many') return [['repeated', `${p}=a&${p}=b`], ['brackets', `${p}[]=a&${p}[]=b`], ['indexed', `${p}[0]=a&${p}[1]=b`]];
  if (kind === 'object' && fields) {
    const [w] = fields.where;
    const [o] = fields.order;
    return [
      ['page and per_page', `${p}[page]=1&${p}[per_page]=5`],
      ['terms', `${p}[where][${w}][]=a&${p}[where][${w}][]=b`],
      ['no terms', `${p}[where][${w}][]=`],
      ['_or', `${p}[where][_or][0][${w}]=a&${p}[where][_or][1][${w}][not]=b`],
      ['order object', `${p}[order][${o}]=desc`],
      ['order name', `${p}[order]=${o}`],
      ['aggs list', `${p}[aggs][]=${o}`],
      ['aggs object', `${p}[aggs][${o}][limit]=5`],
      ['null', `${p}[where][${w}]=null`],
    ];
  }
  return [];
}

/** Prototype names as values: data like any other, never a 5xx. */
function prototypeValues(p: string, schema: Schema, fields: Route['fields']): Array<[string, string]> {
  const names = ['__proto__', 'constructor', 'toString'];
  const kind = kindOf(schema);
  if (kind === 'object') {
    const w = fields?.where[0] ?? 'x';
    return names.flatMap((n) => [
      [`where value ${n}`, `${p}[where][${w}]=${n}`],
      [`order ${n}`, `${p}[order]=${n}`],
      [`aggs ${n}`, `${p}[aggs][]=${n}`],
    ] as Array<[string, string]>);
  }
  return names.map((n) => [`value ${n}`, kind === 'many' ? `${p}=${n}&${p}=${n}` : `${p}=${n}`]);
}

async function send(route: Route, tested: string, query: string) {
  const base = baseOf(route, tested);
  const path = `/v1${route.template.replace(/\{[^}]+\}/g, () => randomUUID())}`;
  const search = [new URLSearchParams(base.query).toString(), query].filter(Boolean).join('&');
  const url = `${path}?${search}`;
  let r = request(t.app)[route.method as 'get' | 'post' | 'put' | 'patch' | 'delete'](url).set('Accept', 'application/json');
  if (!route.public) r = r.set('X-Api-Key', key);
  for (const [k, v] of Object.entries(base.headers)) r = r.set(k, v);
  if (['post', 'put', 'patch'].includes(route.method)) r = r.send({});
  const res = await r;
  return { url, status: res.status as number, body: res.body };
}

/** A request that should be refused: its answer, checked against the document unless a 5xx. */
async function refused(route: Route, tested: string, shape: string, query: string) {
  const res = await send(route, tested, query);
  if (res.status < 500) assertMatchesOpenApi(route.method, res.url, res.status, res.body);
  return { shape, query, status: res.status, body: res.body };
}

/** The route's 400 envelope: the store locator's (PRODUCT.md 7) or SPEC 7's generic one. */
function expected400(route: Route) {
  return route.storeLocator400
    ? expect.objectContaining({ error: 'Invalid search parameters' })
    : { status: 400, error: 'Bad Request', message: expect.any(String) };
}

const label = (r: Route) => `${r.method.toUpperCase()} ${r.template}`;

test('the document gives every route of /v1 that reads a query, with its parameters', () => {
  const names = ROUTES.map((r) => `${label(r)}: ${r.parameters.map((p) => p.name).join(' ')}`);
  expect(names).toEqual(expect.arrayContaining(['GET /leads: q include opts', 'POST /leads: include', expect.stringMatching(/^GET \/store_locator: cc_id latitude /)]));
});

describe.each(ROUTES.map((r) => [label(r), r] as const))('%s', (_label, route) => {
  test.each(route.parameters.map((p) => [p.name, p] as const))('%s: a shape it cannot mean is a 400 in the route envelope', async (name, parameter) => {
    const answers = [];
    for (const [shape, query] of wrongShapes(name, parameter.schema, route.fields)) answers.push(await refused(route, name, shape, query));
    expect(answers).toEqual(answers.map(({ shape, query }) => ({ shape, query, status: 400, body: expected400(route) })));
  });

  test('a prototype name as a parameter of its own is a 400 in the route envelope', async () => {
    const answers = [];
    for (const [shape, query] of [
      ['__proto__', '__proto__[x]=1'],
      ['constructor', 'constructor=1'],
      ['toString', 'toString=1'],
      ['encoded __proto__', '%5F%5Fproto%5F%5F%5Bx%5D=1'],
    ]) {
      answers.push(await refused(route, '', shape, query));
    }
    expect(answers).toEqual(answers.map(({ shape, query }) => ({ shape, query, status: 400, body: expected400(route) })));
  });

  test.each(route.parameters.map((p) => [p.name, p] as const))('%s: the shapes it takes, and prototype names as values, are answered', async (name, parameter) => {
    const answers = [];
    for (const [shape, query] of [['absent', ''], ...acceptedShapes(name, parameter.schema, route.fields)] as Array<[string, string]>) {
      const res = await send(route, name, query);
      answers.push({ shape, query, status: res.status, body: res.status === 400 ? res.body : undefined });
    }
    // Lists and searches answer 200; a show or write of a random id, with no body, its 404 or 422.
    // The contact form's challenge refuses every key it does not know with its one 403 (docs/lead-loop.md).
    const answered = route.template === '/store_locator/challenge' ? [403] : route.method === 'get' && !route.template.includes('{') ? [200] : [404, 422];
    expect(answers).toEqual(answers.map((a) => ({ ...a, status: answered.includes(a.status) ? a.status : answered[0], body: undefined })));
    for (const [shape, query] of prototypeValues(name, parameter.schema, route.fields)) {
      const res = await send(route, name, query);
      expect({ shape, status: res.status < 500 ? 'answered' : res.status }).toEqual({ shape, status: 'answered' });
      if (res.status === 400) expect(res.body).toEqual(expected400(route));
    }
  });
});

describe('store locator without a company', () => {
  test('neither X-Cc-Id nor cc_id: 404 saying a company id is required', async () => {
    for (const query of ['latitude=45&longitude=-122', 'cc_id=&latitude=45&longitude=-122']) {
      const res = await request(t.app).get(`/v1/store_locator?${query}`);
      assertMatchesOpenApi('get', `/v1/store_locator?${query}`, res.status, res.body);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 404,
        body: { status: 404, error: 'Not Found', message: "Couldn't find Company without an 'id': send X-Cc-Id or cc_id" },
      });
    }
  });

  test('an id that names no company still names the id', async () => {
    const id = randomUUID();
    const res = await request(t.app).get(`/v1/store_locator?cc_id=${id}&latitude=45&longitude=-122`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, error: 'Not Found', message: `Couldn't find Company with 'id'=${id}` });
  });
});
