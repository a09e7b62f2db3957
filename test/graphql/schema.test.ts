import fs from 'node:fs';
import { printedSchema, SCHEMA_FILE } from '../../src/graphql/schema';

test('schema/schema.graphql is the emitted schema (run `npm run schema:emit` after GraphQL changes)', () => {
  expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
});
