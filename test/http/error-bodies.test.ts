import request from 'supertest';
import { api, createTestApp, gql, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { assertMatchesOpenApi } from '../support/openapi';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  const em = t.em();
  key = (await f.userWithKey(em, Role.CompanyAdmin, await f.company(em))).key;
});
afterAll(() => t.close());

const oversized = (root: string) => JSON.stringify({ [root]: { name: 'x'.repeat(1_100_000) } });
const graphqlError = (code: string, message?: string | RegExp) => ({
  errors: [{ message: message === undefined ? expect.any(String) : typeof message === 'string' ? message : expect.stringMatching(message), extensions: { code } }],
});

describe('413: a body above 1 MB', () => {
  test('REST answers the SPEC 7 envelope, not PayloadTooLargeError', async () => {
    const res = await api(t, 'post', '/v1/products', { key, raw: oversized('product') });
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 413, error: 'Payload Too Large', message: 'Request body is larger than 1 MB' });
  });

  test('/graphql answers a GraphQL error with a code, not an HTML page', async () => {
    const res = await request(t.app).post('/graphql').set('Content-Type', 'application/json').set('X-Api-Key', key).send(oversized('variables'));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(graphqlError('PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MB'));
  });
});

describe('415: a body that is not JSON', () => {
  test('REST refuses a declared non-JSON body instead of parsing it as JSON', async () => {
    const body = JSON.stringify({ product: { sku: 'P-415', name: 'Plain' } });
    const res = await request(t.app).post('/v1/products').set('X-Api-Key', key).set('Content-Type', 'text/plain').send(body);
    expect(res.status).toBe(415);
    assertMatchesOpenApi('post', '/v1/products', res.status, res.body);
    expect(res.body).toEqual({
      status: 415,
      error: 'Unsupported Media Type',
      message: 'Content-Type "text/plain" is not supported: send application/json',
    });
    const form = await request(t.app).patch('/v1/products/00000000-0000-4000-8000-000000000000').set('X-Api-Key', key).type('form').send('a=b');
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ status: 415, error: 'Unsupported Media Type' });
  });

  test('JSON media types with parameters or a +json suffix are accepted', async () => {
    for (const [type, sku] of [['application/json; charset=utf-8', 'P-J1'], ['application/vnd.api+json', 'P-J2']]) {
      const res = await request(t.app).post('/v1/products').set('X-Api-Key', key).set('Content-Type', type).send(JSON.stringify({ product: { sku, name: sku } }));
      expect({ type, status: res.status }).toEqual({ type, status: 201 });
    }
  });

  test('an unsupported charset or content encoding is 415 in the contract style', async () => {
    const rest = await request(t.app).post('/v1/products').set('X-Api-Key', key).set('Content-Type', 'application/json; charset=ebcdic').send('{}');
    expect(rest.status).toBe(415);
    expect(rest.body).toEqual({ status: 415, error: 'Unsupported Media Type', message: 'Unsupported charset "EBCDIC"' });
    const graphql = await request(t.app).post('/graphql').set('X-Api-Key', key).set('Content-Type', 'application/json').set('Content-Encoding', 'nope').send('{}');
    expect(graphql.status).toBe(415);
    expect(graphql.body).toEqual(graphqlError('UNSUPPORTED_MEDIA_TYPE', /content encoding/));
  });

  test('/graphql answers 415 with a GraphQL error', async () => {
    const res = await request(t.app).post('/graphql').set('X-Api-Key', key).set('Content-Type', 'text/plain').send('{"query":"{ __typename }"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual(graphqlError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type "text/plain" is not supported: send application/json'));
  });

  test('requests without a body are not asked for a Content-Type', async () => {
    expect((await request(t.app).get('/v1/products').set('X-Api-Key', key).set('Content-Type', 'text/plain')).status).toBe(200);
    expect((await gql(t, key, '{ __typename }')).status).toBe(200);
  });
});

describe('400: malformed JSON', () => {
  test('REST keeps SPEC 7 `Invalid JSON: ...`', async () => {
    const res = await api(t, 'post', '/v1/products', { key, raw: '{"product":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, error: 'Bad Request', message: expect.stringMatching(/^Invalid JSON: /) });
  });

  test('/graphql answers a GraphQL error with BAD_REQUEST, not an HTML page', async () => {
    const res = await request(t.app).post('/graphql').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{"query":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(graphqlError('BAD_REQUEST', /^Invalid JSON: /));
  });

  test('the style follows routing, which ignores case: /GraphQL is GraphQL', async () => {
    const res = await request(t.app).post('/GraphQL').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{"query":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual(graphqlError('BAD_REQUEST', /^Invalid JSON: /));
  });

  test('an undecodable path is a SPEC 7 400, not an error named after its class', async () => {
    const res = await request(t.app).get('/v1/products/%E0%A4%A').set('X-Api-Key', key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, error: 'Bad Request', message: expect.any(String) });
    expect(res.body.message).not.toMatch(/URIError|Error$/);
  });
});

describe('404 and 405 as before', () => {
  test('unknown routes are JSON 404s; a wrong method on /graphql is a GraphQL 405', async () => {
    expect((await request(t.app).get('/v1/nope').set('X-Api-Key', key)).body).toMatchObject({ status: 404, error: 'Not Found' });
    expect((await request(t.app).get('/nope')).body).toMatchObject({ status: 404, error: 'Not Found' });
    const put = await request(t.app).put('/graphql').set('X-Api-Key', key).set('Content-Type', 'application/json').send('{}');
    expect(put.status).toBe(405);
    expect(put.body).toEqual(graphqlError('BAD_REQUEST'));
  });
});
