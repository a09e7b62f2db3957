import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * What a person meets on a running leadnet, checked over HTTP and in a real browser (Debian's Chromium):
 * every page and every asset those pages load answers, with the headers it must have, without a console
 * error, a failed request or a request leaving the service (map tiles are answered by the browser here:
 * CI has no internet). Used by `npm run smoke:prod` (scripts/smoke-prod.ts) and test/ops/build.test.ts.
 *
 * The functions run in the page are strings: under tsx a function's inner names would reach the page
 * wrapped in a helper the page does not have.
 */
export interface SmokeTarget {
  /** The service, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** A company whose store finder lists stores. */
  companyId: string;
  /** A key GraphiQL runs its first example with. */
  apiKey: string;
  metricsToken?: string;
}

export interface SmokeReport {
  /** One line per check that passed. */
  passed: string[];
  /** One line per problem; empty when everything passed. */
  failures: string[];
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function smokeCheck(target: SmokeTarget, log: (line: string) => void = () => undefined): Promise<SmokeReport> {
  const report: SmokeReport = { passed: [], failures: [] };
  const check = (ok: boolean, what: string, detail = '') => {
    if (ok) report.passed.push(what);
    else report.failures.push(detail ? `${what}: ${detail}` : what);
    log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : `: ${detail}`}`);
  };
  await httpChecks(target, check);
  await browserChecks(target, check);
  return report;
}

type Check = (ok: boolean, what: string, detail?: string) => void;

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const has = (value: string | null, ...parts: string[]) => value !== null && parts.every((p) => value.includes(p));

async function httpChecks(t: SmokeTarget, check: Check): Promise<void> {
  const health = await get(`${t.url}/healthz`);
  check(health.status === 200, 'GET /healthz is 200', String(health.status));

  const home = await get(`${t.url}/`, { accept: 'text/html' });
  check(home.status === 200 && has(home.text, 'href="/graphql"', 'href="/v1/docs"'), 'GET / is a page linking GraphiQL and the API reference', `${home.status} ${home.text.slice(0, 200)}`);
  const links = await get(`${t.url}/`, { accept: 'application/json' });
  check(links.status === 200 && links.text.includes('"api_reference":"/v1/docs"'), 'GET / answers its links as JSON to API clients', `${links.status} ${links.text.slice(0, 200)}`);

  const widget = await get(`${t.url}/locator/widget.js`);
  check(widget.status === 200 && widget.text.length > 10_000, 'GET /locator/widget.js is 200 with the bundled finder', `${widget.status} ${widget.text.slice(0, 200)}`);
  check(has(widget.headers.get('content-type'), 'javascript'), 'widget.js is JavaScript', String(widget.headers.get('content-type')));
  check(widget.headers.get('access-control-allow-origin') === '*', 'widget.js allows any origin (CORS)', String(widget.headers.get('access-control-allow-origin')));
  check(widget.headers.get('cross-origin-resource-policy') === 'cross-origin', 'widget.js may be embedded cross-origin (CORP)');
  check(widget.headers.get('x-content-type-options') === 'nosniff', 'widget.js is nosniff');

  const metrics = await get(`${t.url}/metrics`, t.metricsToken ? { authorization: `Bearer ${t.metricsToken}` } : {});
  check(metrics.status === 200 && /^# (HELP|TYPE) /m.test(metrics.text), 'GET /metrics is 200 in the Prometheus format', `${metrics.status} ${metrics.text.slice(0, 200)}`);

  const openapi = await get(`${t.url}/v1/openapi.json`);
  check(openapi.status === 200 && openapi.text.startsWith('{'), 'GET /v1/openapi.json is 200', String(openapi.status));

  const unsubscribe = await get(`${t.url}/notifications/unsubscribe?token=forged.token`);
  check(
    [400, 404, 410].includes(unsubscribe.status) && has(unsubscribe.headers.get('content-type'), 'text/html'),
    'a forged unsubscribe link gets a page saying so, never a 5xx',
    String(unsubscribe.status),
  );

  for (const [name, url] of [['GraphiQL', `${t.url}/graphql`], ['/v1/docs', `${t.url}/v1/docs`]]) {
    const page = await get(url, { accept: 'text/html' });
    const csp = page.headers.get('content-security-policy');
    check(page.status === 200 && has(page.headers.get('content-type'), 'text/html'), `${name} is an HTML page`, String(page.status));
    check(has(csp, "frame-ancestors 'none'", "script-src 'self'") && !has(csp, 'unsafe-eval'), `${name} has a strict CSP and is never framed`, String(csp));
    check(page.headers.get('x-frame-options') === 'DENY', `${name} has X-Frame-Options: DENY`);
    check(page.headers.get('x-content-type-options') === 'nosniff', `${name} is nosniff`);
    check(page.headers.get('referrer-policy') === 'no-referrer', `${name} sends no Referer`, String(page.headers.get('referrer-policy')));
  }

  const finder = await get(`${t.url}/locator/${t.companyId}`);
  const csp = finder.headers.get('content-security-policy');
  check(finder.status === 200, 'the store finder page is 200', String(finder.status));
  check(has(csp, 'frame-ancestors *', "script-src 'self'", "connect-src 'self'"), 'the store finder page may be framed by any site, runs only the service\'s scripts', String(csp));
  check(finder.headers.get('x-frame-options') === null, 'the store finder page has no X-Frame-Options (it is meant to be framed)');
  check(finder.headers.get('x-content-type-options') === 'nosniff', 'the store finder page is nosniff');
  check(finder.headers.get('referrer-policy') === 'strict-origin-when-cross-origin', 'the store finder page sends its origin only as Referer');
}

/** A 256x256 PNG of one flat colour: what the browser gets for a map tile here. */
export function tilePng(rgb: [number, number, number] = [226, 232, 236]): Buffer {
  const size = 256;
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3).fill(Buffer.from(rgb))]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

interface Watched {
  page: Page;
  /** Console errors, page errors, failed and refused requests, responses >= 400. */
  problems: string[];
  /** Every URL the page loaded from the service. */
  loaded: Set<string>;
  tiles: number;
}

/** A page whose problems are recorded; requests beyond `origins` are refused, images (map tiles) answered. */
async function watch(browser: Browser, origins: string[], viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const w: Watched = { page, problems: [], loaded: new Set(), tiles: 0 };
  const png = tilePng();
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith('data:') || origins.some((o) => url.startsWith(`${o}/`))) void req.continue();
    else if (req.resourceType() === 'image') {
      w.tiles++;
      void req.respond({ status: 200, contentType: 'image/png', body: png, headers: { 'Access-Control-Allow-Origin': '*' } });
    } else {
      w.problems.push(`request outside the service: ${url}`);
      void req.abort();
    }
  });
  page.on('console', (m) => {
    if (m.type() === 'error') w.problems.push(`console error: ${m.text()} (${m.location()?.url ?? ''})`);
  });
  page.on('pageerror', (e) => w.problems.push(`page error: ${(e as Error).message ?? e}`));
  page.on('requestfailed', (r) => {
    // The map cancels the tiles it no longer shows when its view changes (Leaflet empties their src).
    if (r.resourceType() === 'image' && r.failure()?.errorText === 'net::ERR_ABORTED') return;
    if (!w.problems.some((p) => p.endsWith(r.url()))) w.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`);
  });
  page.on('response', (r) => {
    if (origins.some((o) => r.url().startsWith(`${o}/`))) w.loaded.add(r.url());
    if (r.status() >= 400) w.problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return w;
}

/**
 * Runs `body` (a function body) in the page as DevTools does, which the page's Content Security Policy
 * does not govern (`new Function` in the page would be refused by it, as it should be).
 */
const evaluate = <T>(page: Page, body: string): Promise<T> => page.evaluate(`(() => { ${body} })()`) as Promise<T>;

async function waitFor(page: Page, body: string, timeout = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await evaluate<boolean>(page, body).catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const FINDER = `const root = document.querySelector('[data-leadnet-locator]')?.shadowRoot;`;

async function browserChecks(t: SmokeTarget, check: Check): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) {
    check(false, 'Chromium is installed', `${CHROMIUM} does not exist: apt-get install -y chromium (or set CHROMIUM_PATH)`);
    return;
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-smoke-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage', `--user-data-dir=${profile}`],
  });
  // A brand's own site on another origin, embedding the finder with the README's snippet.
  const host = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Brand</title><link rel="icon" href="data:,"></head><body><h1>Our stores</h1>` +
        `<div data-leadnet-locator data-company="${t.companyId}"></div><script src="${t.url}/locator/widget.js" async></script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  const result = (name: string, w: Watched) => {
    check(w.problems.length === 0, `${name}: ${w.loaded.size} files loaded, no console error, failed request or request outside the service`, w.problems.join('; '));
  };
  try {
    // GraphiQL, on a desktop and on a phone: the first example runs with the key.
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      const name = `GraphiQL at ${viewport.width} px`;
      const w = await watch(browser, [t.url], viewport);
      await w.page.goto(`${t.url}/graphql`, { waitUntil: 'load' });
      check(await waitFor(w.page, `return document.querySelector('.graphiql-query-editor .CodeMirror') !== null;`), `${name}: the editor appears`);
      await w.page.type('#api-key', t.apiKey);
      await waitFor(w.page, `return !document.querySelector('.graphiql-execute-button')?.disabled;`);
      await new Promise((r) => setTimeout(r, 800)); // the key field's debounce: GraphiQL gets the keyed fetcher
      await w.page.click('.graphiql-execute-button');
      const ran = await waitFor(w.page, `const cm = document.querySelector('.result-window .CodeMirror')?.CodeMirror; return !!cm && /"leads"/.test(cm.getValue());`);
      check(ran, `${name}: the first example runs with the key and shows leads`);
      const boxes = await evaluate<Record<string, { width: number; height: number }>>(
        w.page,
        `const box = (s) => { const r = document.querySelector(s).getBoundingClientRect(); return { width: r.width, height: r.height }; };
         return { query: box('.graphiql-query-editor'), response: box('.graphiql-response') };`,
      );
      const usable = (b: { width: number; height: number }) => b.width >= Math.min(300, viewport.width * 0.75) && b.height >= 200;
      check(usable(boxes.query) && usable(boxes.response), `${name}: the editor and the response are each usable`, JSON.stringify(boxes));
      check(
        await evaluate<boolean>(w.page, `return !!document.querySelector('link[rel=icon]') && /"perPage"/.test(document.querySelector('.graphiql-editor-tool .CodeMirror').CodeMirror.getValue());`),
        `${name}: a favicon, and the example's variables in the Variables pane`,
      );
      result(name, w);
      await w.page.close();
    }

    {
      const w = await watch(browser, [t.url]);
      await w.page.goto(`${t.url}/v1/docs`, { waitUntil: 'load' });
      check(await waitFor(w.page, `return document.querySelectorAll('.swagger-ui .opblock').length > 10;`), '/v1/docs: the API reference lists the operations');
      result('/v1/docs', w);
      await w.page.close();
    }

    for (const [name, url, origins] of [
      ['the store finder page', `${t.url}/locator/${t.companyId}`, [t.url]],
      ['the finder embedded in a brand\'s page', hostUrl, [t.url, hostUrl]],
    ] as Array<[string, string, string[]]>) {
      const w = await watch(browser, origins);
      await w.page.goto(url, { waitUntil: 'load' });
      const shown = await waitFor(w.page, `${FINDER} return !!root && root.querySelectorAll('.ln-store').length > 0 && root.querySelectorAll('.ln-marker, .ln-cluster').length > 0;`);
      check(shown, `${name}: the finder lists stores and shows them on the map`);
      check(w.tiles > 0, `${name}: map tiles are asked for`);
      const globals = await evaluate<string[]>(w.page, `return ['L', 'LeadnetLocator', '_leaflet_events'].filter((n) => n in window);`);
      check(globals.length === 0, `${name}: no global left on the page`, globals.join(', '));
      result(name, w);
      await w.page.close();
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => host.close(resolve));
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
