import { GraphQLError, GraphQLScalarType } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { LimitViolation, checkJson } from '../limits';

/**
 * graphql-scalars' JSON (same name and SDL) with the bounds of src/limits.ts on every input: nesting,
 * size and text PostgreSQL can store. REST bodies and variables meet it while they are coerced.
 */
export const JSONScalar = new GraphQLScalarType({
  ...GraphQLJSON.toConfig(),
  parseValue(value) {
    bounded(value);
    return GraphQLJSON.parseValue(value);
  },
  parseLiteral(ast, variables) {
    const value = GraphQLJSON.parseLiteral(ast, variables);
    bounded(value);
    return value;
  },
});

function bounded(value: unknown): void {
  try {
    checkJson(value);
  } catch (e) {
    if (e instanceof LimitViolation) throw new GraphQLError(`JSON ${e.message}`);
    throw e;
  }
}
