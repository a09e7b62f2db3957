import { buildSchema } from '../../src/graphql/schema';
import { OperationRegistry, restDocumentFiles } from '../../src/rest/operations';
import { modules } from '../../src/modules';

test('every REST operation document parses and validates against the schema', () => {
  const files = restDocumentFiles();
  expect(files.length).toBeGreaterThan(0);
  const registry = new OperationRegistry(buildSchema(modules), files);
  expect(registry.names()).toEqual(expect.arrayContaining(['ListProducts', 'ShowProduct', 'CreateProduct', 'UpdateProduct', 'DeleteProduct']));
});

test('an invalid document stops the start with a message naming it', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ops-')), 'bad.rest.graphql');
  fs.writeFileSync(file, 'query Bad { result: products { nodes { nope } } }');
  expect(() => new OperationRegistry(buildSchema(modules), [file])).toThrow(/bad\.rest\.graphql: .*nope/);
});

test('a file may use the fragments of another file (the shared RestMeta)', () => {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-'));
  const shared = path.join(dir, 'shared.rest.graphql');
  const uses = path.join(dir, 'uses.rest.graphql');
  fs.writeFileSync(shared, 'fragment Meta on SearchMeta { total }');
  fs.writeFileSync(uses, 'query Uses { result: products { meta { ...Meta } } }');
  const registry = new OperationRegistry(buildSchema(modules), [shared, uses]);
  expect(registry.names()).toEqual(['Uses']);
  expect(() => new OperationRegistry(buildSchema(modules), [uses])).toThrow(/uses\.rest\.graphql: Unknown fragment "Meta"/);
});
