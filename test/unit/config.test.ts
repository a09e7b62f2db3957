import { ConfigError, parseConfig } from '../../src/config';

test('defaults', () => {
  const c = parseConfig({});
  expect(c).toMatchObject({ port: 3000, strictParams: false, seedDemo: true, logLevel: 'info', searchBackend: 'postgres' });
  expect(c.databaseUrl).toBeUndefined();
});

test.each([
  ['PORT', 'abc'],
  ['PORT', '70000'],
  ['DATABASE_URL', 'not a url'],
  ['LOG_LEVEL', 'loud'],
  ['STRICT_PARAMS', 'maybe'],
  ['SEARCH_BACKEND', 'solr'],
])('a bad %s (%s) stops the start with a message naming it', (name, value) => {
  expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
  expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(name));
});

test('booleans', () => {
  expect(parseConfig({ STRICT_PARAMS: 'true', SEED_DEMO: 'false' })).toMatchObject({ strictParams: true, seedDemo: false });
});
