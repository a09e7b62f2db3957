import { createTestApp } from '../support/app';
import { PostgresSearchBackend } from '../../src/search/postgres';
import { searchConformance } from './conformance';

searchConformance({
  name: 'PostgreSQL',
  createApp: () => createTestApp(),
  backend: (t) => new PostgresSearchBackend(() => t.em()),
  settle: async () => undefined,
  load: async () => undefined,
  countsStatements: true,
});
