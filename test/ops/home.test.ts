import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { seedDemo } from '../../src/modules/demo/demo-seed';
import { modules } from '../../src/modules';
import { buildApp } from '../../src/app';

/** `GET /` (src/home/home.router.ts; docs/operations.md, "The start page"). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const LINKS = { graphiql: '/graphql', api_reference: '/v1/docs', openapi: '/v1/openapi.json', health: '/healthz', ready: '/readyz' };

test('JSON for programs (application/json, */*, no Accept), HTML for browsers; without a demo company no store finder', async () => {
  for (const accept of ['application/json', '*/*', undefined]) {
    const req = request(t.app).get('/');
    const res = await (accept ? req.set('Accept', accept) : req.unset('Accept'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.body).toEqual({ name: 'leadnet', description: expect.any(String), links: LINKS, demo_company: null });
  }
  const page = await request(t.app).get('/').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  for (const href of Object.values(LINKS)) expect(page.text).toContain(`href="${href}"`);
  expect(page.text).not.toContain('/locator/');
});

test('once the demo network is seeded, its company and store finder are linked (names escaped in HTML)', async () => {
  const seed = (await seedDemo(t.em(), modules))!;
  // A name as an admin could set it: the page escapes it.
  await t.em().getConnection().execute(`update companies set name = '<b>Cascade</b> & Co' where id = ?`, [seed.company.id]);
  // The lookup is kept 30 s: another app on the same database reads the seeded company at once.
  const { app, stop } = await buildApp(t.config, t.orm);
  try {
    const json = await request(app).get('/').set('Accept', 'application/json');
    expect(json.body.links.store_finder).toBe(`/locator/${seed.company.id}`);
    expect(json.body.demo_company).toEqual({ id: seed.company.id, name: '<b>Cascade</b> & Co', store_finder: `/locator/${seed.company.id}` });
    const page = await request(app).get('/').set('Accept', 'text/html');
    expect(page.text).toContain(`href="/locator/${seed.company.id}"`);
    expect(page.text).toContain('Store finder of &#60;b&#62;Cascade&#60;/b&#62; &#38; Co');
    expect(page.text).not.toContain('<b>Cascade');
  } finally {
    await stop();
  }
});
