import express from 'express';
import request from 'supertest';
import { locatorWidgetRouter } from '../../src/locator-widget/locator-widget.router';
import { edgeErrorHandler } from '../../src/http/errors';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';

let t: TestApp;
let companyId: string;
let retailerId: string;

beforeAll(async () => {
  t = await createTestApp({ LOCATOR_TILE_URL: 'https://{s}.tiles.example.test/{z}/{x}/{y}.png', LOCATOR_TILE_ATTRIBUTION: '© Example tiles' });
  const net = await lf.locatorNetwork(t.em(), 'Acme <Lighting> & "Co"');
  companyId = net.company.id;
  retailerId = net.retailer.id;
});
afterAll(() => t.close());

describe('GET /locator/{company_id}', () => {
  test('a complete page holding the finder, the company\'s name escaped, a CSP allowing only the service and the tile server', async () => {
    const res = await request(t.app).get(`/locator/${companyId}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<title>Find a Acme &#60;Lighting&#62; &#38; &#34;Co&#34; store</title>');
    expect(res.text).toContain(`<div data-leadnet-locator data-company="${companyId}" data-lang="en"></div>`);
    expect(res.text).toContain('<script src="widget.js"></script>');
    expect(res.text).not.toMatch(/<script>|\son\w+=/); // no inline script or handler: the CSP allows none
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['content-security-policy']).toContain("img-src 'self' data: https://*.tiles.example.test;");
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
    // Embeddable by any site (iframe), so no X-Frame-Options; the rest of a page's hardening applies.
    expect(res.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['permissions-policy']).toContain('geolocation=(self)');
  });

  test('with a trailing slash the page loads the script from the same place', async () => {
    const res = await request(t.app).get(`/locator/${companyId}/`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<script src="../widget.js"></script>');
  });

  test('a huge or malformed query string: the page without the odd parameters, never a 5xx', async () => {
    const long = `/locator/${companyId}?color=${'a'.repeat(6000)}&radius[$gt]=1&units[]=km&lang[a][b][c][d][e][f]=fr&${'x[]=1&'.repeat(500)}`;
    const res = await request(t.app).get(long);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<div data-leadnet-locator data-company="${companyId}" data-lang="en"></div>`);
    const bad = await request(t.app).get(`/locator/${companyId}?color=%E0%A4%A&lang=%00fr`);
    expect(bad.status).toBeLessThan(500);
  });

  test('lang, color, radius and units pass on as data attributes; anything odd is dropped', async () => {
    const ok = await request(t.app).get(`/locator/${companyId}?lang=fr-CA&color=%232f7d32&radius=50&units=km`);
    expect(ok.text).toContain(`data-company="${companyId}" data-lang="fr" data-color="#2f7d32" data-radius="50" data-units="km"`);
    expect(ok.text).toContain('<html lang="fr">');
    expect(ok.text).toContain('Trouver un magasin');
    const odd = await request(t.app).get(`/locator/${companyId}?color=${encodeURIComponent('red" onload="x')}&radius=-1&units=parsecs&lang[]=fr`);
    expect(odd.status).toBe(200);
    expect(odd.text).toContain(`<div data-leadnet-locator data-company="${companyId}" data-lang="en"></div>`);
  });

  test.each([
    ['unknown', '00000000-0000-4000-8000-000000000000'],
    ['not a UUID', 'acme'],
    ['markup', encodeURIComponent('<script>')],
    ['a very long id', 'a'.repeat(5000)],
    ['a retailer\'s id as', 'retailer'],
  ])('%s company: a 404 page', async (_label, given) => {
    const id = given === 'retailer' ? retailerId : given;
    const res = await request(t.app).get(`/locator/${id}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('This store finder does not exist.');
    expect(res.text).not.toContain('<script>');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('GET /locator/widget.js', () => {
  test('one script: the finder with Leaflet and its styles bundled, the configured tiles, cacheable', async () => {
    const res = await request(t.app).get('/locator/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    // Any site loads it: by <script src>, with crossorigin (CORS) or under Cross-Origin-Embedder-Policy (CORP).
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toContain('https://{s}.tiles.example.test/{z}/{x}/{y}.png');
    expect(res.text).toContain('© Example tiles');
    expect(res.text).toContain('.leaflet-container'); // Leaflet's stylesheet, for the shadow root
    expect(res.text).toContain('data-leadnet-locator');
    expect(res.text).toContain('attachShadow');
    // No other script or stylesheet is fetched from anywhere (no CDN).
    expect(res.text).not.toMatch(/unpkg|jsdelivr|cdnjs|googleapis/);
    const again = await request(t.app).get('/locator/widget.js').set('If-None-Match', res.headers.etag);
    expect(again.status).toBe(304);
  });

  test('a failure to make the script is a 500 that no cache keeps, and the next request tries again', async () => {
    let calls = 0;
    const app = express();
    app.use(
      locatorWidgetRouter(
        { orm: t.orm, config: t.config },
        { bundle: async () => (++calls === 1 ? Promise.reject(new Error('esbuild failed')) : 'console.log("finder")') },
      ),
      edgeErrorHandler,
    );
    const failed = await request(app).get('/locator/widget.js');
    expect(failed.status).toBe(500);
    expect(failed.headers['cache-control']).toBe('no-store');
    expect(failed.text).not.toContain('esbuild');
    const next = await request(app).get('/locator/widget.js');
    expect(next.status).toBe(200);
    expect(next.headers['cache-control']).toBe('public, max-age=300');
    expect(next.text).toContain('console.log("finder")');
  });
});
