import { cacheBudget } from '../../src/memory';
import { ConfigError, parseConfig } from '../../src/config';

test('defaults', () => {
  const c = parseConfig({});
  expect(c).toMatchObject({ port: 3000, strictParams: false, seedDemo: true, logLevel: 'info', searchBackend: 'postgres' });
  expect(c.databaseUrl).toBeUndefined();
  expect(c.host).toBeUndefined();
  expect(c.shutdownTimeoutMs).toBe(10000);
});

test('HOST and SHUTDOWN_TIMEOUT_MS', () => {
  expect(parseConfig({ HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '2500' })).toMatchObject({ host: '127.0.0.1', shutdownTimeoutMs: 2500 });
});

test.each([
  ['PORT', 'abc'],
  ['PORT', '70000'],
  ['DATABASE_URL', 'not a url'],
  ['LOG_LEVEL', 'loud'],
  ['LOG_LEVEL', 'verbose'],
  ['SHUTDOWN_TIMEOUT_MS', '-1'],
  ['STRICT_PARAMS', 'maybe'],
  ['SEARCH_BACKEND', 'solr'],
  ['STORE_LOCATOR_HELD_MB', '0'],
  ['STORE_LOCATOR_HELD_MB', 'lots'],
])('a bad %s (%s) stops the start with a message naming it', (name, value) => {
  expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
});

test("STORE_LOCATOR_HELD_MB: the memory of the held store copies, the cache's share of the heap unless set", () => {
  expect(parseConfig({}).storeLocator.heldBytes).toBe(cacheBudget('store_locator_held'));
  expect(parseConfig({ STORE_LOCATOR_HELD_MB: '1' }).storeLocator.heldBytes).toBe(1024 * 1024);
});

test('booleans', () => {
  expect(parseConfig({ STRICT_PARAMS: 'true', SEED_DEMO: 'false' })).toMatchObject({ strictParams: true, seedDemo: false });
});

describe('the HTTP edge', () => {
  test('defaults protect production: limits on, no proxy trusted, no CORS, timeouts well under Node defaults', () => {
    expect(parseConfig({}).http).toEqual({
      trustProxy: false,
      rateLimit: { windowMs: 60_000, api: 600, apiPerIp: 3000, storeLocator: 120, storeContact: 10, storeContactPerSiteKey: 300 },
      fairShare: { inFlight: 8, queue: 100, waitMs: 10_000 },
      graphqlCorsOrigins: [],
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      idleTimeoutMs: 120_000,
    });
  });

  test.each([
    ['false', false],
    ['true', true],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(parseConfig({ TRUST_PROXY: value }).http.trustProxy).toEqual(expected);
  });

  test('origins are trimmed; limits of 0 turn a limiter off', () => {
    const c = parseConfig({ GRAPHQL_CORS_ORIGINS: ' https://a.example.test ,http://localhost:5173', RATE_LIMIT_STORE_LOCATOR: '0' });
    expect(c.http.graphqlCorsOrigins).toEqual(['https://a.example.test', 'http://localhost:5173']);
    expect(c.http.rateLimit.storeLocator).toBe(0);
  });

  test.each([
    ['RATE_LIMIT_API', '-1'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['REDIS_URL', 'localhost'],
    ['HTTP_HEADERS_TIMEOUT_MS', 'soon'],
  ])('a bad %s (%s) stops the start', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  test('a header timeout above the request timeout is refused', () => {
    expect(() => parseConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS/);
  });
});
