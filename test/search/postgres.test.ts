import { createTestApp, type TestApp } from '../support/app';
import { PostgresSearchBackend } from '../../src/search/postgres.queries';
import type { SearchDocument } from '../../src/search/types';
import { createFixtures, fixtures, ids, searchConformance, WHERE_CASES } from './conformance';

searchConformance({
  name: 'PostgreSQL',
  createApp: () => createTestApp(),
  backend: (t) => new PostgresSearchBackend(() => t.em()),
  settle: async () => undefined,
  load: async () => undefined,
  countsStatements: true,
});

/**
 * An array field whose conditions read its related rows (`each`, as a company retailer's CRL fields do)
 * means what the array means: the fixtures' tags, kept one row per tag, answer every array case alike.
 */
describe('an array field read through its rows (each)', () => {
  let t: TestApp;
  const byRows: SearchDocument = {
    ...fixtures,
    fields: {
      ...fixtures.fields,
      tags: {
        ...fixtures.fields.tags,
        sql: 'array(select x.tag from search_fixture_tags x where x.fixture_id = f.id)',
        each: { rows: 'search_fixture_tags x where x.fixture_id = f.id', value: 'x.tag' },
      },
    },
  };
  beforeAll(async () => {
    t = await createTestApp();
    await createFixtures(t);
    await t.em().getConnection().execute(`create table search_fixture_tags as select id as fixture_id, unnest(tags) as tag from search_fixtures`);
  });
  afterAll(() => t.close());

  test.each(WHERE_CASES.filter(([, req]) => JSON.stringify(req.where ?? {}).includes('"tags"')))('%s', async (_name, req, expected) => {
    const result = await new PostgresSearchBackend(() => t.em()).search(byRows, { page: 1, perPage: 50, scope: {}, ...req });
    expect(ids(result)).toEqual(expected);
    expect(result.total).toBe(expected.length);
  });
});
