import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { GraphQLError, GraphQLScalarType } from 'graphql';
import { GraphQLJSON, GraphQLUUID } from 'graphql-scalars';
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

export { GraphQLUUID as UUIDScalar };

/** SPEC 2.8 `SearchMeta`. */
@ObjectType()
export class SearchMeta {
  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  perPage!: number;

  @Field(() => Int)
  totalPages!: number;

  @Field(() => JSONScalar)
  aggs!: Record<string, unknown>;
}

/** The list arguments every list field takes (PRODUCT.md section 6). */
@ArgsType()
export class ListArgs {
  @Field(() => String, { nullable: true, description: 'Full-text query; `*` or absent matches all.' })
  q?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Filters on the fields of the list (PRODUCT.md 6; camelCase or snake_case names), e.g. `{"createdAt": {"gte": "2026-01-01"}}`; an unknown field is BAD_USER_INPUT.' })
  where?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: '`{"created_at": "desc"}`, a list of such pairs, or a field name.' })
  order?: unknown;

  @Field(() => Int, { nullable: true, description: 'Page number, from 1.' })
  page?: number | null;

  @Field(() => Int, { nullable: true, description: 'Page size, default 50, at most 500.' })
  perPage?: number | null;

  @Field(() => JSONScalar, { nullable: true, description: 'Fields to aggregate: a list, or `{field: {limit, where, order, min_doc_count}}`.' })
  aggs?: unknown;
}

export interface Page<T> {
  nodes: T[];
  meta: SearchMeta;
}

/** `{ nodes: [T], meta: SearchMeta }` for one node type. */
export function PageType<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(name)
  class PageClass implements Page<T> {
    @Field(() => [node])
    nodes!: T[];

    @Field(() => SearchMeta)
    meta!: SearchMeta;
  }
  return PageClass;
}
