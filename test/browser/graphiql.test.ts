import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { buildSchema, parse, validate } from 'graphql';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../support/app';
import { createLead, quoteRequest, roles } from '../support/leads';
import { confineTo, launchChromium } from '../support/browser';
import { listen } from '../support/finder-world';
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

/**
 * The abuse cases of the IDE and the API reference (docs/graphiql.md): clickjacking, the key leaking
 * through Referer or storage, a page without a key, phones. Pages of "another site" come from `other`.
 */
describe('GraphiQL and /v1/docs against abuse', () => {
  let other: Awaited<ReturnType<typeof listen>>;
  const seen: Array<{ url: string; referer?: string }> = [];
  let otherBody = '';
  beforeAll(async () => {
    other = await listen((req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({ url: req.url ?? '', referer: req.headers.referer });
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(otherBody);
    });
  });
  afterAll(() => other?.close());

  /** A page recording console errors and the requests it sends to the service. */
  async function open(url: string, viewport = { width: 1280, height: 900 }) {
    const page = await chromium!.browser.newPage();
    await page.setViewport(viewport);
    const errors: string[] = [];
    const posts: Array<{ referer?: string; key?: string }> = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url() === `${origin}/graphql`) posts.push({ referer: r.headers().referer, key: r.headers()['x-api-key'] });
    });
    await page.goto(url, { waitUntil: 'networkidle0' });
    return { page, errors, posts };
  }

  /**
   * Types the key, lets the IDE settle (300 ms after the last keystroke it renders again and reloads the
   * schema with the key), runs the open tab and returns the response pane's text, whatever it says.
   */
  async function runWithKey(page: Awaited<ReturnType<typeof open>>['page'], key: string) {
    await page.type('#api-key', key);
    await new Promise((resolve) => setTimeout(resolve, 800));
    await page.waitForNetworkIdle({ idleTime: 300, timeout: 15000 });
    await page.click('.graphiql-execute-button');
    // A JSON answer, not the editor's measuring text (zero-width spaces around an `x`, which trim() keeps).
    await page.waitForFunction(() => ((globalThis as any).document.querySelector('.result-window')?.textContent ?? '').includes('{'), { timeout: 30000 });
    return page.$eval('.result-window', (el: any) => el.textContent as string);
  }

  test.each(['/graphql', '/v1/docs'])('%s: a strict CSP, never framed, no Referer, nosniff, no opener', async (path) => {
    const res = await request(t.app).get(path).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.text).not.toMatch(/<script>|\son\w+=/); // no inline script or handler
  });

  test('the query string is not reflected in the page, and a huge one is not a 5xx', async () => {
    const res = await request(t.app).get(`/graphql?x=${encodeURIComponent('<script>alert(1)</script>')}&y[a][b]=1`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('alert(1)');
    const huge = await request(t.app).get(`/graphql?${'a[]=1&'.repeat(2000)}`).set('Accept', 'text/html');
    expect(huge.status).toBeLessThan(500);
  });

  test('clickjacking: another site framing GraphiQL or the API reference gets nothing shown', async () => {
    otherBody = `<!doctype html><link rel="icon" href="data:,"><iframe id="a" src="${origin}/graphql"></iframe><iframe id="b" src="${origin}/v1/docs"></iframe>`;
    const page = await chromium!.browser.newPage();
    await page.goto(`${other.url}/frames`, { waitUntil: 'networkidle0' });
    const frames = page.frames().filter((f) => f !== page.mainFrame());
    expect(frames).toHaveLength(2);
    for (const frame of frames) {
      // A refused frame is Chromium's error page: the IDE's key field never exists in it.
      expect(frame.url()).toMatch(/^chrome-error:/);
      expect(await frame.evaluate(() => (globalThis as any).document.getElementById('api-key'))).toBeNull();
    }
    await page.close();
  });

  test('no key: nothing is sent (no 401s), the response pane says what to do; no console error on the page', async () => {
    const { page, errors, posts } = await open(`${origin}/graphql`);
    await page.waitForSelector('.graphiql-execute-button');
    await page.click('.graphiql-execute-button');
    await page.waitForFunction(() => /No API key/.test((globalThis as any).document.querySelector('.result-window')?.textContent ?? ''), { timeout: 15000 });
    expect(posts).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('the key: sent only as a header to the service, with no Referer; kept in the tab unless remembered; never in a URL', async () => {
    const { page, errors, posts } = await open(`${origin}/graphql`);
    const key = r.users.companyAdmin.key;
    expect(await runWithKey(page, key)).toContain('"leads"');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.filter((p) => p.key !== key || p.referer)).toEqual([]); // puppeteer shows a Referer not sent as ''
    expect(page.url()).not.toContain(key);
    const stored = () => page.evaluate(() => [(globalThis as any).sessionStorage.getItem('leadnet.apiKey'), (globalThis as any).localStorage.getItem('leadnet.apiKey')]);
    expect(await stored()).toEqual([key, null]);
    await page.click('#remember-key');
    expect(await stored()).toEqual([key, key]);
    await page.click('#remember-key');
    expect(await stored()).toEqual([key, null]);
    // A link followed from the page (GraphiQL shows links in descriptions) tells the other site nothing.
    seen.splice(0);
    otherBody = '<!doctype html><link rel="icon" href="data:,"><p>other</p>';
    await page.evaluate((url: string) => {
      const a = (globalThis as any).document.createElement('a');
      a.href = url;
      a.textContent = 'out';
      (globalThis as any).document.body.append(a);
    }, `${other.url}/landing`);
    await Promise.all([page.waitForNavigation(), page.click('a[href$="/landing"]')]);
    expect(seen).toEqual([{ url: '/landing', referer: undefined }]);
    expect(errors).toEqual([]);
    await page.close();
  });

  test('first visit: every example tab has its variables in the Variables pane; the page has an icon', async () => {
    const { page } = await open(`${origin}/graphql`);
    await page.waitForSelector('.graphiql-editor-tool .CodeMirror');
    const variables = () => page.$eval('.graphiql-editor-tool .CodeMirror', (el: any) => el.CodeMirror.getValue());
    expect(await variables()).toBe(exampleTabs[0].variables);
    await page.click('#graphiql-session-tab-1');
    await page.waitForFunction((v: string) => (globalThis as any).document.querySelector('.graphiql-editor-tool .CodeMirror').CodeMirror.getValue() === v, {}, exampleTabs[1].variables!);
    await page.click('#graphiql-session-tab-0');
    await page.waitForFunction((v: string) => (globalThis as any).document.querySelector('.graphiql-editor-tool .CodeMirror').CodeMirror.getValue() === v, {}, exampleTabs[0].variables!);
    const icon = await page.$eval('link[rel=icon]', (l: any) => l.href);
    const res = await fetch(icon);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    await page.close();
  });

  test('at 390 px (a phone): the editor and the response are stacked, each the width of the screen but the sidebar', async () => {
    const { page, errors } = await open(`${origin}/graphql`, { width: 390, height: 844 });
    // The tabs are kept in the origin's storage, which the pages of this browser share: the leads tab
    // is chosen, whichever tab an earlier test's page left open.
    await page.click('#graphiql-session-tab-0');
    await page.waitForFunction((v: string) => (globalThis as any).document.querySelector('.graphiql-editor-tool .CodeMirror').CodeMirror.getValue() === v, {}, exampleTabs[0].variables!);
    expect(await runWithKey(page, r.users.companyAdmin.key)).toContain('"leads"');
    const box = (selector: string) =>
      page.$eval(selector, (el: any) => {
        const b = el.getBoundingClientRect();
        return { top: b.top, bottom: b.bottom, width: b.width, height: b.height };
      });
    const editor = await box('.graphiql-query-editor');
    const response = await box('.graphiql-response');
    expect(editor.width).toBeGreaterThanOrEqual(300);
    expect(response.width).toBeGreaterThanOrEqual(300);
    expect(editor.height).toBeGreaterThanOrEqual(200);
    expect(response.height).toBeGreaterThanOrEqual(200);
    expect(response.top).toBeGreaterThanOrEqual(editor.bottom); // stacked
    expect(errors).toEqual([]);
    await page.close();
  });

  test('/v1/docs loads the reference with no console error (no CSP violation) and nothing from outside', async () => {
    const page = await chromium!.browser.newPage();
    const outside = await confineTo(page, origin);
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${origin}/v1/docs`, { waitUntil: 'networkidle0' });
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.swagger-ui .opblock').length > 10, { timeout: 15000 });
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });
});
