import fs from 'node:fs';
import path from 'node:path';
import {
  parse,
  validate,
  visit,
  Kind,
  specifiedRules,
  NoUnusedFragmentsRule,
  type DefinitionNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
} from 'graphql';

const FRAGMENT_FILE_RULES = specifiedRules.filter((rule) => rule !== NoUnusedFragmentsRule);

/**
 * The GraphQL documents behind the REST facade: `src/rest/*.rest.graphql` (fragments shared by every
 * resource) and every `src/modules/<resource>/<resource>.rest.graphql`, parsed and validated against the
 * schema once, at start. A file may use the fragments of any other file. An invalid document stops
 * the start with a message naming its file.
 */
export class OperationRegistry {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(schema: GraphQLSchema, files: string[] = restDocumentFiles()) {
    const parsed = files.map((file) => ({ file, definitions: parse(fs.readFileSync(file, 'utf8')).definitions }));
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const { file, definitions } of parsed) {
      for (const def of definitions) {
        if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
        if (fragments.has(def.name.value)) throw new Error(`${path.basename(file)}: duplicate REST fragment ${def.name.value}`);
        fragments.set(def.name.value, def);
      }
    }
    for (const { file, definitions } of parsed) {
      const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: withUsedFragments(definitions, fragments) };
      // A file of shared fragments alone is checked without the unused-fragment rule.
      const operations = definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION);
      const errors = validate(schema, document, operations ? specifiedRules : FRAGMENT_FILE_RULES);
      if (errors.length) throw new Error(`${path.basename(file)}: ${errors.map((e) => e.message).join('; ')}`);
      for (const def of definitions) {
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

/** A file's definitions plus the fragments of other files they spread, transitively. */
function withUsedFragments(own: readonly DefinitionNode[], fragments: Map<string, FragmentDefinitionNode>): DefinitionNode[] {
  const result = [...own];
  const present = new Set(own.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => (d as FragmentDefinitionNode).name.value));
  for (let i = 0; i < result.length; i++) {
    visit(result[i], {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !present.has(fragment.name.value)) {
          present.add(fragment.name.value);
          result.push(fragment);
        }
      },
    });
  }
  return result;
}

export function restDocumentFiles(): string[] {
  const rest = __dirname;
  const modules = path.join(__dirname, '..', 'modules');
  const shared = fs.readdirSync(rest).filter((f) => f.endsWith('.rest.graphql')).map((f) => path.join(rest, f));
  const perResource = fs.readdirSync(modules).flatMap((dir) => {
    const folder = path.join(modules, dir);
    return fs.statSync(folder).isDirectory()
      ? fs.readdirSync(folder).filter((f) => f.endsWith('.rest.graphql')).map((f) => path.join(folder, f))
      : [];
  });
  return [...shared.sort(), ...perResource.sort()];
}
