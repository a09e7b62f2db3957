import SwaggerParser from '@apidevtools/swagger-parser';
import { openApiDocument } from '../../src/rest/openapi';
import { OpenApiValidator } from '../support/openapi';
import { openApiLists } from '../../src/modules';

const doc = openApiDocument();
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace'];

/** SPEC 4.2's endpoint table, word for word. */
const SPEC_ENDPOINTS: Record<string, string[]> = {
  '/leads': ['get', 'post'],
  '/leads/{id}': ['get', 'patch', 'put', 'delete'],
  '/lead_activities': ['get', 'post'],
  '/lead_activities/{id}': ['get', 'patch', 'put', 'delete'],
  '/company_retailers': ['get', 'post'],
  '/company_retailers/{id}': ['get', 'patch', 'put', 'delete'],
  '/company_retailer_locations': ['get', 'post'],
  '/company_retailer_locations/{id}': ['get', 'patch', 'delete'],
  '/products': ['get', 'post'],
  '/products/{id}': ['get', 'patch', 'delete'],
  '/store_locator': ['get'],
  '/store_locator/{id}': ['get'],
};

/** Paths added beyond SPEC 4.2 (PRODUCT.md 11: additive, described by the document). */
const ADDITIONS: Record<string, string[]> = {
  '/leads/batch': ['post'],
  // The lead loop's actions on a lead (docs/lead-loop.md).
  '/leads/{id}/accept': ['post'],
  '/leads/{id}/decline': ['post'],
  '/leads/{id}/outcome': ['post'],
  '/leads/{id}/consent_withdrawals': ['post'],
  // Visitors ask a store (docs/lead-loop.md): public, no API key.
  '/store_locator/challenge': ['get'],
  '/store_locator/{id}/leads': ['post'],
};

function operations() {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

test('is a valid OpenAPI 3.1 document with every $ref resolvable', async () => {
  await expect(SwaggerParser.validate(structuredClone(doc) as any)).resolves.toBeDefined();
  expect(doc.openapi).toMatch(/^3\.1\./);
});

test('the validity check does fail on a broken document', async () => {
  const broken: any = structuredClone(doc);
  broken.paths['/products'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' };
  await expect(SwaggerParser.validate(broken)).rejects.toThrow();
});

test('title and version per SPEC 9, paths under /v1', () => {
  expect(doc.info.title).toMatch(/V1$/);
  expect(doc.info.version).toBe('1.0.0');
  expect(doc.servers).toEqual([expect.objectContaining({ url: '/v1' })]);
});

test('documents exactly the paths and methods of SPEC 4.2, and the additions', () => {
  const documented = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [p, METHODS.filter((m) => item[m])]));
  const sorted = (o: Record<string, string[]>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, [...v].sort()]));
  expect(sorted(documented)).toEqual(sorted({ ...SPEC_ENDPOINTS, ...ADDITIONS }));
});

test('store locator is public, every other operation needs X-Api-Key and documents 401', () => {
  expect(doc.components.securitySchemes.api_key).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }));
  expect(doc.security).toEqual([{ api_key: [] }]);
  for (const { path, op } of operations()) {
    if (path.startsWith('/store_locator')) {
      expect(op.security).toEqual([]);
      expect(op.responses['401']).toBeUndefined();
    } else {
      expect(op.security).toBeUndefined();
      expect(op.responses['401']).toBeDefined();
    }
  }
});

test('status codes per the SPEC 4.2 table', () => {
  const expected: Record<string, string[]> = {
    list: ['200', '401'],
    show: ['200', '401', '404'],
    create: ['201', '400', '401', '422'],
    update: ['200', '400', '401', '404', '422'],
    replace: ['200', '400', '401', '404', '422'],
    delete: ['204', '401', '404', '422'],
  };
  for (const { path, method, op } of operations()) {
    if (path.startsWith('/store_locator') || ADDITIONS[path]) continue;
    const kind = op.operationId.match(/^(list|show|create|update|replace|delete)/)![1];
    const codes = Object.keys(op.responses);
    expect({ path, method, codes: expected[kind].filter((c) => codes.includes(c)) }).toEqual({ path, method, codes: expected[kind] });
    // The HTTP edge: every operation may be rate limited; every body must be JSON.
    expect({ path, method, has429: codes.includes('429'), has415: codes.includes('415') }).toEqual({ path, method, has429: true, has415: !!op.requestBody });
    // 403: CRLs and products by SPEC 4.2, leads by SPEC 4.3, every resource for platform operators (PRODUCT 2).
    expect({ path, method, has403: codes.includes('403') }).toEqual({ path, method, has403: true });
  }
  const search = doc.paths['/store_locator'].get.responses;
  // 304: the caching addition (a matching If-None-Match).
  expect(Object.keys(search).sort()).toEqual(['200', '304', '400', '404', '429', '503']);
  expect(Object.keys(doc.paths['/store_locator/{id}'].get.responses).sort()).toEqual(['200', '304', '400', '404', '429', '503']);
});

test('every operation documents the 503 of a database outage (README "Database outages")', () => {
  for (const { path, method, op } of operations()) {
    expect({ path, method, ref: op.responses['503']?.$ref }).toEqual({ path, method, ref: '#/components/responses/ServiceUnavailable' });
  }
});

test('list endpoints take q, include and opts (deepObject) and answer the list envelope', () => {
  const roots: Record<string, string> = {
    '/leads': 'leads',
    '/lead_activities': 'lead_activities',
    '/company_retailers': 'company_retailers',
    '/company_retailer_locations': 'company_retailer_locations',
    '/products': 'products',
  };
  for (const [path, root] of Object.entries(roots)) {
    const op = doc.paths[path].get;
    const names = op.parameters.map((p: any) => (p.$ref ? p.$ref.split('/').pop() : p.name));
    expect(names).toEqual(['q', 'include', 'opts']);
    const ref: string = op.responses['200'].content['application/json'].schema.$ref;
    const list = doc.components.schemas[ref.split('/').pop()!];
    expect(Object.keys(list.properties).sort()).toEqual(['meta', root].sort());
    expect(list.required.sort()).toEqual(['meta', root].sort());
  }
  expect(doc.components.parameters.opts).toEqual(expect.objectContaining({ in: 'query', style: 'deepObject', explode: true }));
});

test('every response schema compiles, and every example in the document matches its schema', () => {
  const validator = new OpenApiValidator(doc);
  const compile = (schema: unknown) => validator.compile(schema);
  let examples = 0;
  const check = (where: string, schema: unknown, value: unknown) => {
    const validate = compile(schema);
    expect({ where, errors: validate(value) ? null : validate.errors }).toEqual({ where, errors: null });
    examples++;
  };
  for (const [name, schema] of Object.entries<any>(doc.components.schemas)) {
    compile(schema);
    for (const [i, example] of (schema.examples ?? []).entries()) check(`schema ${name} example ${i}`, schema, example);
  }
  const contents = (x: any) => Object.values<any>(x?.content ?? {});
  for (const { path, method, op } of operations()) {
    for (const media of contents(op.requestBody)) {
      for (const [name, ex] of Object.entries<any>(media.examples ?? {})) check(`${method} ${path} request ${name}`, media.schema, ex.value);
    }
    for (const [code, r] of Object.entries<any>(op.responses)) {
      const response = r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
      for (const media of contents(response)) {
        compile(media.schema);
        for (const [name, ex] of Object.entries<any>(media.examples ?? {})) check(`${method} ${path} ${code} ${name}`, media.schema, ex.value);
      }
    }
  }
  expect(examples).toBeGreaterThan(10);
});

test('POST /leads/batch: 200 with one result per item, the create statuses for the request as a whole', () => {
  const op = doc.paths['/leads/batch'].post;
  expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '409', '413', '415', '422', '429', '503']);
  expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LeadBatchBody' });
  const body = doc.components.schemas.LeadBatchBody;
  expect(body.properties.leads).toEqual({ type: 'array', minItems: 1, maxItems: 500, items: { $ref: '#/components/schemas/LeadInput' } });
  const result = doc.components.schemas.LeadBatchResult;
  expect(result.required).toEqual(['status', 'body']);
  expect(result.properties.body.anyOf).toContainEqual({ $ref: '#/components/schemas/Lead' });
});

test('every write takes Idempotency-Key, documents its 409 and the replay header; reads do not', () => {
  expect(doc.components.parameters.IdempotencyKey).toEqual(
    expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } }),
  );
  let writes = 0;
  for (const { path, method, op } of operations()) {
    const names = (op.parameters ?? []).map((p: any) => p.$ref);
    // The public contact form has no API key to keep Idempotency-Keys under (a replayed proof is refused instead).
    const write = method !== 'get' && path !== '/store_locator/{id}/leads';
    expect({ path, method, key: names.includes('#/components/parameters/IdempotencyKey') }).toEqual({ path, method, key: write });
    if (!write) continue;
    writes++;
    // An offer's answer has a 409 of its own (the offer not open), whose prose names the running key's 409 too.
    const conflict = /^\/leads\/\{id\}\/(accept|decline)$/.test(path) ? 'OfferConflict' : 'IdempotencyConflict';
    expect({ path, method, conflict: op.responses['409'] }).toEqual({ path, method, conflict: { $ref: `#/components/responses/${conflict}` } });
    const success = Object.entries<any>(op.responses).find(([code]) => code.startsWith('2'))![1];
    expect({ path, method, replay: success.headers?.['Idempotent-Replayed'] }).toEqual({ path, method, replay: { $ref: '#/components/headers/IdempotentReplayed' } });
  }
  // 19 of SPEC 4.2 and the batch, and the lead's four actions (accept, decline, outcome, consent_withdrawals).
  expect(writes).toBe(23);
});
