import { getNamedType, isObjectType, visit, type FieldNode, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';

/**
 * The names of the fields the operation selects on the records of a list field, found under the
 * given paths of the list's result (`['nodes']` of a page, `['edges', 'node']` of a connection), with
 * fragments, aliases and `@include`/`@skip` resolved as graphql-js executes them. A list resolver uses
 * it to read, in its own statement, the associations its records will be asked for.
 *
 * The answer depends on the field's nodes and on the variables of its `@include`/`@skip`: it is kept per
 * field nodes (the same array each time a compiled operation runs) and those variables' values.
 */
export function selectedFields(info: GraphQLResolveInfo, ...paths: string[][]): ReadonlySet<string> {
  let kept = answers.get(info.fieldNodes);
  if (!kept) answers.set(info.fieldNodes, (kept = new Map()));
  const key = `${paths.map((p) => p.join('.')).join('|')}:${directiveVariables(info).map((name) => String(info.variableValues[name])).join(',')}`;
  let names = kept.get(key);
  if (!names) {
    names = collectSelected(info, paths);
    kept.set(key, names);
  }
  return names;
}

const answers = new WeakMap<readonly FieldNode[], Map<string, ReadonlySet<string>>>();
const variablesOf = new WeakMap<OperationDefinitionNode, string[]>();

/** The variables the `@include`/`@skip` of the operation and of its document's fragments read. */
function directiveVariables(info: GraphQLResolveInfo): string[] {
  let names = variablesOf.get(info.operation);
  if (!names) {
    const found = new Set<string>();
    for (const node of [info.operation, ...Object.values(info.fragments)]) {
      visit(node, {
        Directive(directive) {
          if (directive.name.value !== 'include' && directive.name.value !== 'skip') return;
          for (const arg of directive.arguments ?? []) if (arg.value.kind === 'Variable') found.add(arg.value.name.value);
        },
      });
    }
    names = [...found].sort();
    variablesOf.set(info.operation, names);
  }
  return names;
}

function collectSelected(info: GraphQLResolveInfo, paths: string[][]): Set<string> {
  const names = new Set<string>();
  for (const path of paths) {
    let nodes: readonly FieldNode[] = info.fieldNodes;
    let type = getNamedType(info.returnType);
    for (const step of path) {
      if (!isObjectType(type)) break;
      const fields = collectSubfields(info.schema, info.fragments, info.variableValues, type, nodes);
      nodes = [...fields.values()].flat().filter((n) => n.name.value === step);
      const field = type.getFields()[step];
      if (!field || !nodes.length) {
        nodes = [];
        break;
      }
      type = getNamedType(field.type);
    }
    if (!nodes.length || !isObjectType(type)) continue;
    for (const list of collectSubfields(info.schema, info.fragments, info.variableValues, type, nodes).values()) {
      for (const node of list) names.add(node.name.value);
    }
  }
  return names;
}
