import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { buildSchema, parse, validate } from 'graphql';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { confineTo, launchChromium } from '../support/browser';
import { exampleTabs } from '../../src/graphiql/examples';
import { SCHEMA_FILE } from '../../src/graphql/schema';

let t: TestApp;
let r: Awaited<ReturnType<typeof roles>>;
let server: Server;
let origin: string;
let chromium: Awaited<ReturnType<typeof launchChromium>> | undefined;

beforeAll(async () => {
  t = await createTestApp();
  r = await roles(t.em());
  await createLead(t, r.users.companyAdmin.key, quoteRequest({ name: 'Ida Browser' }));
  server = t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chromium = await launchChromium();
});
afterAll(async () => {
  await chromium?.close();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

describe('GraphiQL at /graphql', () => {
  test('a browser gets the IDE page; API clients still get GraphQL', async () => {
    const page = await request(t.app).get('/graphql').set('Accept', 'text/html,application/xhtml+xml');
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html');
    expect(page.text).toContain('/graphql/ide/graphiql.min.js');
    expect(page.text).not.toMatch(/https?:\/\//);

    const asset = await request(t.app).get('/graphql/ide/graphiql.min.js');
    expect(asset.status).toBe(200);
    expect(asset.type).toMatch(/javascript/);
    expect((await request(t.app).get('/graphql/ide/unknown.js')).status).toBe(404);

    const query = await request(t.app)
      .get('/graphql')
      .query({ query: '{ __typename }' })
      .set('Accept', 'application/json')
      .set('apollo-require-preflight', '1')
      .set('X-Api-Key', r.users.companyAdmin.key);
    expect(query.body).toEqual({ data: { __typename: 'Query' } });
  });

  test('the saved example operations are valid against the schema', () => {
    const schema = buildSchema(readFileSync(SCHEMA_FILE, 'utf8'));
    for (const tab of exampleTabs) expect(validate(schema, parse(tab.query)).map((e) => e.message)).toEqual([]);
  });

  test('loads with nothing from outside the service, and a typed query runs with the key from the field', async () => {
    const page = await chromium!.browser.newPage();
    const outside = await confineTo(page, origin);
    await page.goto(`${origin}/graphql`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.graphiql-query-editor .CodeMirror');

    await page.type('#api-key', r.users.companyAdmin.key);
    await page.click('.graphiql-query-editor .CodeMirror');
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('{ leads(perPage: 5) { meta { total } nodes { name } } }');
    const typed = await page.$eval('.graphiql-query-editor .CodeMirror', (el: any) => el.CodeMirror.getValue());
    expect(typed.replace(/\s+/g, ' ').trim()).toBe('{ leads(perPage: 5) { meta { total } nodes { name } } }');

    // GraphiQL re-reads the operation name from the editor after a short debounce, as after a person types.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.result-window')?.textContent?.includes('Ida Browser'), { timeout: 15000 });
    const result = await page.$eval('.result-window .CodeMirror', (el: any) => JSON.parse(el.CodeMirror.getValue()));
    expect(result).toEqual({ data: { leads: { meta: { total: 1 }, nodes: [{ name: 'Ida Browser' }] } } });
    expect(outside).toEqual([]);

    // The schema docs open from the same page (the schema is fetched with the key from the field).
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('Query'), { timeout: 15000 });
    await page.close();
  });
});
