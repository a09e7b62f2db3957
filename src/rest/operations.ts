import fs from 'node:fs';
import path from 'node:path';
import { parse, validate, type DocumentNode, type GraphQLSchema, Kind } from 'graphql';

/**
 * The GraphQL documents behind the REST facade: every `src/modules/<resource>/<resource>.rest.graphql`,
 * parsed and validated against the schema once, at start. An invalid document stops the start.
 */
export class OperationRegistry {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(schema: GraphQLSchema, files: string[] = restDocumentFiles()) {
    for (const file of files) {
      const document = parse(fs.readFileSync(file, 'utf8'));
      const errors = validate(schema, document);
      if (errors.length) throw new Error(`${path.basename(file)}: ${errors.map((e) => e.message).join('; ')}`);
      for (const def of document.definitions) {
        if (def.kind !== Kind.OPERATION_DEFINITION) continue;
        if (!def.name) throw new Error(`${path.basename(file)}: every REST operation must be named`);
        if (this.documents.has(def.name.value)) throw new Error(`Duplicate REST operation ${def.name.value}`);
        this.documents.set(def.name.value, document);
      }
    }
  }

  /** The validated document holding the named operation. */
  get(name: string): DocumentNode {
    const document = this.documents.get(name);
    if (!document) throw new Error(`Unknown REST operation ${name}`);
    return document;
  }

  names(): string[] {
    return [...this.documents.keys()];
  }
}

export function restDocumentFiles(): string[] {
  const modules = path.join(__dirname, '..', 'modules');
  return fs
    .readdirSync(modules)
    .flatMap((dir) => {
      const folder = path.join(modules, dir);
      return fs.statSync(folder).isDirectory()
        ? fs.readdirSync(folder).filter((f) => f.endsWith('.rest.graphql')).map((f) => path.join(folder, f))
        : [];
    })
    .sort();
}
