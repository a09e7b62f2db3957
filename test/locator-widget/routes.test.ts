import request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import * as lf from '../support/locator-factories';

let t: TestApp;
let companyId: string;

beforeAll(async () => {
  t = await createTestApp({ LOCATOR_TILE_URL: 'https://{s}.tiles.example.test/{z}/{x}/{y}.png', LOCATOR_TILE_ATTRIBUTION: '© Example tiles' });
  companyId = (await lf.locatorNetwork(t.em(), 'Acme <Lighting> & "Co"')).company.id;
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
    expect(res.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['content-security-policy']).toContain("img-src 'self' data: https://*.tiles.example.test;");
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
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
  ])('%s company: a 404 page', async (_label, id) => {
    const res = await request(t.app).get(`/locator/${id}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('This store finder does not exist.');
    expect(res.text).not.toContain('<script>');
  });
});

describe('GET /locator/widget.js', () => {
  test('one script: the finder with Leaflet and its styles bundled, the configured tiles, cacheable', async () => {
    const res = await request(t.app).get('/locator/widget.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
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
});
