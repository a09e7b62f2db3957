import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpGeocoder, MAX_GEOCODER_ANSWER_BYTES } from '../../src/geo/http-geocoder';
import { AnswerBudget } from '../../src/answer-budget';
import { endlessBody } from '../support/endless-body';
import { api, createTestApp } from '../support/app';
import { quoteRequest } from '../support/leads';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { createGeocoder } from '../../src/geo/factory';
import { OfflineGeocoder } from '../../src/geo/offline-geocoder';
import { NullGeocoder } from '../../src/geo/geocoder';
import { parseConfig } from '../../src/config';
import { logger } from '../../src/logger';

// The failures below are logged as warnings on purpose; keep the test output quiet.
logger.level = 'silent';

/** A local Nominatim stand-in: answers by the `city` parameter, records what it was asked. */
let server: http.Server;
let base: string;
const asked: URL[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://stub');
    asked.push(url);
    const city = url.searchParams.get('city');
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(body);
    };
    if (city === 'Portland') return reply(200, JSON.stringify([{ lat: '45.5202471', lon: '-122.674194', display_name: 'Portland' }]));
    if (city === 'Nowhere') return reply(200, '[]');
    if (city === 'Garbled') return reply(200, '{not json');
    if (city === 'Object') return reply(200, '{"lat": 1, "lon": 2}');
    if (city === 'Strings') return reply(200, '[{"lat": "north", "lon": "west"}]');
    if (city === 'Out of range') return reply(200, '[{"lat": "123", "lon": "0"}]');
    if (city === 'Subnormal') return reply(200, '[{"lat": "5e-324", "lon": "-8.4e-323"}]');
    if (city === 'Broken') return reply(500, '{"error":"boom"}');
    // Never answers (the connection is closed after the tests): only the geocoder's own timeout ends the call.
    if (city === 'Slow') return;
    if (city === 'Hangup') return void req.socket.destroy();
    if (city === 'Flood') return endlessBody(res, '[{"lat": "45.5", "lon": "-122.6", "display_name": "');
    // Endless too, 16 kB every 5 ms: many such answers are read side by side.
    if (city === 'Trickle') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('[{"lat": "45.5", "lon": "-122.6", "display_name": "');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(Buffer.alloc(16_384, 'a'))), 5);
      return;
    }
    if (city === 'Large') return reply(200, JSON.stringify([{ lat: '45.5', lon: '-122.6', display_name: 'a'.repeat(MAX_GEOCODER_ANSWER_BYTES) }]));
    reply(404, '[]');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('a structured Nominatim search; the first hit', async () => {
  const geocoder = new HttpGeocoder(base, 500);
  asked.length = 0;
  const coordinates = await geocoder.geocode({ streetLineOne: '1 Main St', streetLineTwo: 'Suite 2', city: 'Portland', province: 'OR', postalCode: '97205', country: 'US' });
  expect(coordinates).toEqual({ latitude: 45.5202471, longitude: -122.674194 });
  expect(asked).toHaveLength(1);
  expect(asked[0].pathname).toBe('/search');
  expect(Object.fromEntries(asked[0].searchParams)).toEqual({
    format: 'jsonv2',
    limit: '1',
    addressdetails: '0',
    street: '1 Main St, Suite 2',
    city: 'Portland',
    state: 'OR',
    postalcode: '97205',
    country: 'US',
  });
});

test('a URL that already ends in /search is used as is', async () => {
  asked.length = 0;
  await new HttpGeocoder(`${base}/search`, 500).geocode({ city: 'Portland' });
  expect(asked[0].pathname).toBe('/search');
  await new HttpGeocoder(`${base}/nominatim/`, 500).geocode({ city: 'Portland' });
  expect(asked[1].pathname).toBe('/nominatim/search');
});

test.each(['Nowhere', 'Garbled', 'Object', 'Strings', 'Out of range', 'Broken', 'Slow', 'Hangup'])('%s: null, never a throw', async (city) => {
  // Resolving at all shows the 200 ms timeout works ('Slow' never answers); the bound, generous for a
  // busy machine, stays far below jest's own timeout so a hang fails here, saying so.
  const started = Date.now();
  await expect(new HttpGeocoder(base, 200).geocode({ city })).resolves.toBeNull();
  expect(Date.now() - started).toBeLessThan(10_000);
});

test("coordinates too small for PostgreSQL's float math (a hostile or broken server's 5e-324) are 0", async () => {
  expect(await new HttpGeocoder(base, 500).geocode({ city: 'Subnormal' })).toEqual({ latitude: 0, longitude: 0 });
});

test('an answer larger than the bound (an endless body, or a declared one) is cut off there: null, long before the timeout', async () => {
  const geocoder = new HttpGeocoder(base, 30_000);
  const started = Date.now();
  expect(await geocoder.geocode({ city: 'Flood' })).toBeNull();
  expect(await geocoder.geocode({ city: 'Large' })).toBeNull();
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(await geocoder.geocode({ city: 'Portland' })).toEqual({ latitude: 45.5202471, longitude: -122.674194 });
});

test('the answers read at once are bounded together: forty endless ones never hold more than the budget, and a real answer still lands', async () => {
  /** The budget, recording the most it held. */
  class Watched extends AnswerBudget {
    peak = 0;
    override open(cut: (err: Error) => void) {
      const answer = super.open(cut);
      return {
        add: (bytes: number) => {
          answer.add(bytes);
          this.peak = Math.max(this.peak, this.bytes);
        },
        end: () => answer.end(),
      };
    }
  }
  const budget = new Watched(MAX_GEOCODER_ANSWER_BYTES * 2, 'the geocoder');
  const geocoder = new HttpGeocoder(base, 30_000, fetch, budget);
  const floods = Array.from({ length: 40 }, () => geocoder.geocode({ city: 'Trickle' }));
  const real = geocoder.geocode({ city: 'Portland' });
  expect(await Promise.all(floods)).toEqual(Array(40).fill(null));
  expect(await real).toEqual({ latitude: 45.5202471, longitude: -122.674194 });
  expect(budget.peak).toBeGreaterThan(MAX_GEOCODER_ANSWER_BYTES);
  expect(budget.peak).toBeLessThanOrEqual(budget.maxBytes);
  expect(budget.bytes).toBe(0);
});

test('over HTTP (PRODUCT.md 8): a lead created while the geocoder floods its answer is 201 without coordinates, at once', async () => {
  const t = await createTestApp({ GEOCODER: 'http', GEOCODER_URL: base, GEOCODER_TIMEOUT_MS: '30000' });
  try {
    const key = (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key;
    const started = Date.now();
    const res = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ location: { city: 'Flood', country: 'US' } }) });
    expect(res.status).toBe(201);
    expect(res.body.location).toMatchObject({ city: 'Flood', latitude: null, longitude: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    const placed = await api(t, 'post', '/v1/leads', { key, body: quoteRequest({ location: { city: 'Portland', country: 'US' } }) });
    expect(placed.body.location).toMatchObject({ latitude: 45.5202471, longitude: -122.674194 });
  } finally {
    await t.close();
  }
});

test('an unreachable server: null', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await expect(new HttpGeocoder(`http://127.0.0.1:${port}`, 500).geocode({ city: 'Portland' })).resolves.toBeNull();
});

test('an empty address asks nothing', async () => {
  asked.length = 0;
  expect(await new HttpGeocoder(base, 500).geocode({ city: ' ' })).toBeNull();
  expect(asked).toHaveLength(0);
});

test('GEOCODER chooses the geocoder; offline by default', () => {
  // The offline geocoder reads the database only when it places a city.
  const orm = {} as Parameters<typeof createGeocoder>[1];
  expect(createGeocoder(parseConfig({}), orm)).toBeInstanceOf(OfflineGeocoder);
  expect(createGeocoder(parseConfig({ GEOCODER: 'http', GEOCODER_URL: base }), orm)).toBeInstanceOf(HttpGeocoder);
  expect(createGeocoder(parseConfig({ GEOCODER: 'none' }), orm)).toBeInstanceOf(NullGeocoder);
  expect(() => parseConfig({ GEOCODER: 'http' })).toThrow(/GEOCODER_URL/);
});
