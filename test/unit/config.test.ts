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
])('a bad %s (%s) stops the start with a message naming it', (name, value) => {
  expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
});

test('booleans', () => {
  expect(parseConfig({ STRICT_PARAMS: 'true', SEED_DEMO: 'false' })).toMatchObject({ strictParams: true, seedDemo: false });
});
