import { assertMatchesOpenApi } from '../support/openapi';

const id = '0b6e7d1a-3c2f-4e5d-9a8b-7c6d5e4f3a2b';
const product = {
  id,
  sku: 'A-1',
  name: 'Anvil',
  category: null,
  url: null,
  collection_id: null,
  external_id: null,
  company_id: '6f1c2a9e-2b1d-4a53-9a57-0c1f5d3f7a10',
};
const meta = { total: 1, page: 1, per_page: 50, total_pages: 1, aggs: {} };

test('accepts documented responses (query strings and trailing slashes ignored)', () => {
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 200, product)).not.toThrow();
  expect(() => assertMatchesOpenApi('get', '/v1/products?q=anvil&opts[page]=1', 200, { products: [product], meta })).not.toThrow();
  expect(() => assertMatchesOpenApi('get', '/v1/products/', 200, { products: [], meta: { ...meta, total: 0, total_pages: 0 } })).not.toThrow();
  expect(() => assertMatchesOpenApi('delete', `/v1/products/${id}`, 204, {})).not.toThrow();
  expect(() => assertMatchesOpenApi('get', '/v1/leads', 401, { error: 'Unauthorized' })).not.toThrow();
  expect(() => assertMatchesOpenApi('get', '/v1/store_locator', 400, { error: 'Invalid search parameters' })).not.toThrow();
});

test('rejects a body missing a required field', () => {
  const { sku: _sku, ...noSku } = product;
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 200, noSku)).toThrow(/must have required property 'sku'/);
  expect(() => assertMatchesOpenApi('get', '/v1/products', 200, { products: [product] })).toThrow(/required property 'meta'/);
});

test('rejects an extra field on a strict object, naming it', () => {
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 200, { ...product, price: 3 })).toThrow(
    /must NOT have additional properties[\s\S]*"price": 3/,
  );
  expect(() => assertMatchesOpenApi('get', '/v1/products', 200, { products: [product], meta: { ...meta, extra: 1 } })).toThrow(
    /body\/meta must NOT have additional properties/,
  );
});

test('rejects wrong types and nulls where the contract has none', () => {
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 200, { ...product, name: null })).toThrow(/body\/name must be string/);
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 200, { ...product, company_id: 'acme' })).toThrow(/must match format "uuid"/);
});

test('rejects an undocumented status, method or path', () => {
  expect(() => assertMatchesOpenApi('get', `/v1/products/${id}`, 418, {})).toThrow(/status 418 is not documented/);
  expect(() => assertMatchesOpenApi('get', '/v1/products', 500, { status: 500 })).toThrow(/status 500 is not documented/);
  expect(() => assertMatchesOpenApi('put', `/v1/products/${id}`, 200, product)).toThrow(/PUT is not documented on \/products\/\{id\}/);
  expect(() => assertMatchesOpenApi('get', '/v1/widgets', 200, {})).toThrow(/no documented path matches \/widgets/);
  expect(() => assertMatchesOpenApi('get', '/products', 200, {})).toThrow(/not under \/v1/);
});

test('rejects error bodies that are not SPEC 7 envelopes', () => {
  expect(() => assertMatchesOpenApi('get', '/v1/leads', 401, { error: 'Unauthorized', status: 401 })).toThrow(/additional properties/);
  expect(() => assertMatchesOpenApi('get', `/v1/leads/${id}`, 404, { error: 'Not Found' })).toThrow(/required property 'status'/);
  expect(() =>
    assertMatchesOpenApi('post', '/v1/products', 422, { status: 422, error: 'Unprocessable Entity', message: 'x', errors: {} }),
  ).toThrow(/required property 'details'/);
  expect(() =>
    assertMatchesOpenApi('post', '/v1/products', 422, {
      status: 422,
      error: 'Unprocessable Entity',
      message: 'x',
      errors: { sku: ["can't be blank"] },
      details: [{ field: 'sku', code: 'blank', message: "can't be blank", full_message: "Sku can't be blank" }],
    }),
  ).not.toThrow();
});

test('rejects a body on 204', () => {
  expect(() => assertMatchesOpenApi('delete', `/v1/products/${id}`, 204, { ok: true })).toThrow(/has no body/);
});
