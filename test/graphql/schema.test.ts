import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, validate } from 'graphql';
import { buildBareSchema, printedSchema, SCHEMA_FILE } from '../../src/graphql/schema';
import { modules } from '../../src/modules';

test('schema/schema.graphql is the emitted schema (run `npm run schema:emit` after GraphQL changes)', () => {
  expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema(modules));
});

test("the documents' GraphQL examples are valid against the schema", () => {
  const schema = buildBareSchema(modules);
  const problems: string[] = [];
  const root = path.join(__dirname, '..', '..');
  const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  const withExamples = ['README.md', 'src/search/README.md', 'docs/graphql.md'];
  for (const file of ['README.md', 'src/search/README.md', ...docs]) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const blocks = [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]);
    if (withExamples.includes(file)) expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      // A block may hold several operations, each run on its own; "..." stands for an id.
      for (const definition of parse(block.replace(/"\.\.\."/g, '"00000000-0000-4000-8000-000000000000"')).definitions) {
        for (const error of validate(schema, { kind: Kind.DOCUMENT, definitions: [definition] })) problems.push(`${file}: ${error.message}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
