import { getNamedType, isObjectType, type FieldNode, type GraphQLResolveInfo } from 'graphql';
import { collectSubfields } from 'graphql/execution/collectFields';

/**
 * The names of the fields the operation selects on the records of a list field, found under the
 * given paths of the list's result (`['nodes']` of a page, `['edges', 'node']` of a connection), with
 * fragments, aliases and `@include`/`@skip` resolved as graphql-js executes them. A list resolver uses
 * it to read, in its own statement, the associations its records will be asked for.
 */
export function selectedFields(info: GraphQLResolveInfo, ...paths: string[][]): Set<string> {
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
