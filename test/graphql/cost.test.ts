import request from 'supertest';
import * as graphql from 'graphql';
import { Kind, getIntrospectionQuery, validate, type OperationDefinitionNode } from 'graphql';
import { createTestApp, gql, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { parseConfig } from '../../src/config';
import { buildSchema, policies } from '../../src/graphql/schema';
import { OperationRegistry } from '../../src/rest/operations';
import { costValidationRules, operationCost } from '../../src/graphql/cost';

/** Issue 9 items 1, 5 (documents) and 7: one query must not take the service down. */
let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
let leadId: string;
beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  const activities = Array.from({ length: 6 }, (_, i) => ({ type: 'LeadActivity::Note', data: { n: i } }));
  leadId = (await createLead(t, r.users.salesAssociate.key, quoteRequest({ lead_activities: activities }))).id;
});
afterAll(() => t.close());

const refusal = (res: request.Response) => ({ status: res.status, code: res.body.errors?.[0]?.extensions?.code, message: res.body.errors?.[0]?.message });

/** `lead(id) { leadActivities { lead { leadActivities { ... turns ... { id } } } } }` */
function cycle(turns: number): string {
  let inner = 'id';
  for (let i = 0; i < turns; i++) inner = `leadActivities { lead { ${inner} } }`;
  return `{ lead(id: "${leadId}") { ${inner} } }`;
}

describe('the cyclic Lead.leadActivities -> LeadActivity.lead path', () => {
  test('8 turns over a lead with 6 activities is refused before it runs (depth), and the service stays up', async () => {
    const res = await gql(t, r.users.salesAssociate.key, cycle(8));
    expect(refusal(res)).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX', message: 'Query depth exceeds the limit of 10 (found 18); see GRAPHQL_MAX_DEPTH' });
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });

  test('within the depth limit, the cost multiplies on every turn and stops it', async () => {
    const deep = await gql(t, r.users.salesAssociate.key, cycle(4), {});
    expect(deep.body.errors).toBeUndefined(); // 1 + 10 + 100 + 1,000 + 10,000 estimated leads: under the limit
    const wide = await gql(t, r.users.salesAssociate.key, '{ leads(perPage: 500) { nodes { leadActivities { lead { leadActivities { id } } } } } }');
    expect(refusal(wide)).toMatchObject({ status: 400, code: 'QUERY_TOO_COMPLEX' });
    expect(wide.body.errors[0].message).toMatch(/^Query cost exceeds the limit of 50000 \(found \d+\); see GRAPHQL_MAX_COST$/);
  });
});

describe('aliases', () => {
  const bomb = (n: number, perPage: string) =>
    `query${perPage === '$pp' ? '($pp: Int)' : ''} { ${Array.from({ length: n }, (_, i) => `a${i}: leads(perPage: ${perPage}) { nodes { id } }`).join(' ')} }`;

  test('3,000 aliases of leads(perPage: 500) are refused before parsing, fewer by the alias limit', async () => {
    const res = await gql(t, r.users.salesAssociate.key, bomb(3000, '500'));
    expect(refusal(res)).toMatchObject({ status: 400, code: 'QUERY_TOO_COMPLEX' });
    expect(res.body.errors[0].message).toMatch(/^Query document size in bytes exceeds the limit of 32768 \(found \d+\); see GRAPHQL_MAX_DOCUMENT_BYTES$/);
    const tokens = await gql(t, r.users.salesAssociate.key, `{ leads { nodes { ${'id '.repeat(3000)} } } }`);
    expect(refusal(tokens)).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX', message: 'Query token count exceeds the limit of 3000; see GRAPHQL_MAX_TOKENS' });
    const underTokens = await gql(t, r.users.salesAssociate.key, bomb(150, '500'));
    expect(refusal(underTokens)).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX', message: 'Query alias count exceeds the limit of 100 (found 150); see GRAPHQL_MAX_ALIASES' });
  });

  test('100 aliases of 500-row pages are over the cost limit, page sizes read from variables too', async () => {
    const literal = await gql(t, r.users.salesAssociate.key, bomb(100, '500'));
    expect(refusal(literal)).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX', message: 'Query cost exceeds the limit of 50000 (found 50100); see GRAPHQL_MAX_COST' });
    const variable = await gql(t, r.users.salesAssociate.key, bomb(100, '$pp'), { pp: 500 });
    expect(refusal(variable).code).toBe('QUERY_TOO_COMPLEX');
    const small = await gql(t, r.users.salesAssociate.key, bomb(100, '$pp'), { pp: 5 });
    expect(small.body.errors).toBeUndefined();
  });
});

test('directives beyond the limit are refused', async () => {
  const many = Array.from({ length: 21 }, (_, i) => `t${i}: total @include(if: true)`).join(' ');
  const res = await gql(t, r.users.salesAssociate.key, `{ leads { meta { ${many} } } }`);
  expect(refusal(res)).toEqual({ status: 400, code: 'QUERY_TOO_COMPLEX', message: 'Query directive count exceeds the limit of 20 (found 21); see GRAPHQL_MAX_DIRECTIVES' });
});

describe('documents are bounded before they are parsed', () => {
  const huge = `{ leads { nodes { id } } ${' '.repeat(960 * 1024)} }`;

  test('a 960 KB document with a valid key is refused by its size', async () => {
    const res = await gql(t, r.users.salesAssociate.key, huge);
    expect(refusal(res)).toEqual({
      status: 400,
      code: 'QUERY_TOO_COMPLEX',
      message: `Query document size in bytes exceeds the limit of 32768 (found ${Buffer.byteLength(huge)}); see GRAPHQL_MAX_DOCUMENT_BYTES`,
    });
  });

  test('without a key or with an unknown one, nothing is parsed or validated: 401 UNAUTHENTICATED', async () => {
    // Parsing (and so validation) lexes first: no token read means nothing parsed.
    const lexer = jest.spyOn(graphql.Lexer.prototype, 'advance');
    try {
      for (const key of [null, 'lnk_unknownunknownunknownunknown']) {
        const res = await gql(t, key, huge);
        expect(refusal(res)).toEqual({ status: 401, code: 'UNAUTHENTICATED', message: 'Unauthorized' });
      }
      expect(lexer).not.toHaveBeenCalled();
    } finally {
      lexer.mockRestore();
    }
  });

  test('no root field is open to callers without a key, so refusing them before parsing loses nothing', () => {
    const rules = policies();
    const schema = buildSchema();
    for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.keys(root.getFields())) {
        expect({ field: `${root.name}.${field}`, rule: rules[root.name]?.[field]?.constructor?.name }).toEqual({
          field: `${root.name}.${field}`,
          rule: 'Rule',
        });
      }
    }
  });
});

describe('schema discovery', () => {
  test('anonymous callers get neither introspection nor suggestions; callers with a key get both', async () => {
    for (const query of [getIntrospectionQuery(), '{ __schema { queryType { name } } }', '{ generateApiKy }']) {
      const res = await gql(t, null, query);
      expect(refusal(res)).toEqual({ status: 401, code: 'UNAUTHENTICATED', message: 'Unauthorized' });
      expect(JSON.stringify(res.body)).not.toMatch(/Did you mean|__schema|generateApiKey/);
    }
    const introspection = await gql(t, r.users.salesAssociate.key, getIntrospectionQuery());
    expect(introspection.body.errors).toBeUndefined();
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    const typo = await gql(t, r.users.salesAssociate.key, 'mutation { generateApiKy }');
    expect(typo.body.errors[0].message).toMatch(/Did you mean "generateApiKey"/);
  });

  test('both can be turned off for callers with a key too', async () => {
    const closed = await createTestApp({ GRAPHQL_INTROSPECTION: 'false', GRAPHQL_SUGGESTIONS: 'false' });
    try {
      const rr = await roles(closed.em());
      const introspection = await gql(closed, rr.users.companyAdmin.key, '{ __schema { queryType { name } } }');
      expect(introspection.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(introspection.body.data).toBeUndefined();
      const typo = await gql(closed, rr.users.companyAdmin.key, 'mutation { generateApiKy }');
      expect(typo.body.errors[0].message).not.toMatch(/Did you mean/);
    } finally {
      await closed.close();
    }
  });
});

test('a browser GET without an operation still reaches the landing page', async () => {
  const res = await request(t.app).get('/graphql').set('Accept', 'text/html');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
});

test('every REST document passes the default limits at the largest page and with every association', () => {
  const limits = parseConfig({}).graphql;
  const schema = buildSchema();
  const operations = new OperationRegistry(schema);
  for (const name of operations.names()) {
    const document = operations.get(name);
    expect({ name, errors: validate(schema, document, costValidationRules(limits)).map((e) => e.message) }).toEqual({ name, errors: [] });
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === name)!;
    const names = operation.variableDefinitions?.map((v) => v.variable.name.value) ?? [];
    if (!names.includes('perPage')) continue;
    const variables = Object.fromEntries(names.map((v) => [v, v === 'perPage' ? 500 : v.startsWith('include_') ? true : null]));
    expect(operationCost(schema, document, variables, name, limits.listFactor)).toBeLessThanOrEqual(limits.maxCost);
  }
});
