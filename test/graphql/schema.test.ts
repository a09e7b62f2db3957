import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, validate, type GraphQLObjectType } from 'graphql';
import { buildBareSchema, buildSchema, printedSchema, SCHEMA_FILE } from '../../src/graphql/schema';
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

test("a record's plain and getter fields are read as properties, with no resolver function per value", () => {
  const schema = buildSchema(modules);
  const fields = (type: string) => (schema.getType(type) as GraphQLObjectType).getFields();
  // Plain fields and getters (a product's company id) alike.
  for (const field of ['id', 'sku', 'name', 'category', 'url', 'companyId', 'collectionId']) expect(fields('Product')[field].resolve).toBeUndefined();
  for (const field of ['id', 'name', 'status', 'createdAt']) expect(fields('Lead')[field].resolve).toBeUndefined();
  for (const field of ['companyId', 'retailerId', 'territoryId']) expect(fields('CompanyRetailer')[field].resolve).toBeUndefined();
  // Resolver methods keep theirs (a product's images, a lead's emails, a company retailer's company).
  expect(fields('Product').images.resolve).toBeInstanceOf(Function);
  expect(fields('Lead').emails.resolve).toBeInstanceOf(Function);
  expect(fields('CompanyRetailer').company.resolve).toBeInstanceOf(Function);
});
