import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { OPENAPI_PATH } from '../../src/rest/openapi';
import { withListFields } from '../../src/rest/openapi-document';
import { openApiLists } from '../../src/modules';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test('GET /v1/openapi.json serves the committed document without an API key, with each list\'s fields from its search document', async () => {
  const res = await request(t.app).get('/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual(withListFields(JSON.parse(fs.readFileSync(OPENAPI_PATH, 'utf8')), openApiLists));
  const leads = res.body.paths['/leads'].get;
  expect(leads['x-leadnet-fields'].where).toEqual(expect.arrayContaining(['status', 'created_at', 'city', 'emails']));
  expect(leads['x-leadnet-fields'].order).not.toContain('emails');
  expect(leads.description).toMatch(/\*\*Fields\.\*\* `opts\[where\]` and `opts\[aggs\]`: `id`, `name`, `status`/);
  const products = res.body.paths['/products'].get['x-leadnet-fields'];
  expect(products.where).toContain('sku');
  expect(products.where).not.toContain('status');
});

test('GET /v1/docs serves a reference page whose assets load locally', async () => {
  const res = await request(t.app).get('/v1/docs');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain('<title>Lead and Retail Network API V1</title>');
  expect(res.text).toContain('"/v1/openapi.json"');
  const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(assets).toEqual(
    expect.arrayContaining(['/v1/docs/assets/swagger-ui.css', '/v1/docs/assets/swagger-ui-bundle.js', '/v1/docs/assets/favicon-32x32.png', '/v1/docs/assets/docs.js']),
  );
  for (const asset of assets) {
    expect(asset).toMatch(/^\/v1\//); // served here: no CDN
    const a = await request(t.app).get(asset).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect({ asset, status: a.status }).toEqual({ asset, status: 200 });
    // Swagger UI's files, and the page's own start-up script (no inline script: the page's CSP allows none).
    const file =
      path.basename(asset) === 'docs.js'
        ? path.join(__dirname, '..', '..', 'src', 'rest', 'public', 'docs.js')
        : path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), path.basename(asset));
    expect((a.body as Buffer).equals(fs.readFileSync(file))).toBe(true);
  }
  const css = await request(t.app).get('/v1/docs/assets/swagger-ui.css');
  expect(css.headers['content-type']).toMatch(/^text\/css/);
  const js = await request(t.app).get('/v1/docs/assets/swagger-ui-bundle.js');
  expect(js.headers['content-type']).toMatch(/javascript/);
});

test('only the page assets are served from the package', async () => {
  for (const path of ['/v1/docs/assets/index.html', '/v1/docs/assets/package.json', '/v1/docs/assets/..%2Fpackage.json']) {
    const res = await request(t.app).get(path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(expect.objectContaining({ status: 404, error: 'Not Found' }));
  }
});
