// Writes schema/schema.graphql from the resolvers (`npm run schema:emit`).
import 'reflect-metadata';
import fs from 'node:fs';
import { printedSchema, SCHEMA_FILE } from '../src/graphql/schema';
import { modules } from '../src/modules';

fs.writeFileSync(SCHEMA_FILE, printedSchema(modules));
console.log(`wrote ${SCHEMA_FILE}`);
