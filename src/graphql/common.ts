import { Field, FieldResolver, Int, ObjectType, Resolver, Root, type ClassType } from 'type-graphql';
import type { AggResult } from '../search/types';
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

@ObjectType()
export class FacetBucket {
  @Field(() => String, { description: 'The value (numbers and booleans as text, dates as ISO 8601 in UTC).' })
  key!: string;

  @Field(() => Int, { description: 'Records holding it.' })
  docCount!: number;
}

@ObjectType({ description: "Counts of one field's values over the list." })
export class Facet {
  @Field(() => String, { description: 'The field (camelCase), as asked in `aggs`.' })
  field!: string;

  @Field(() => [FacetBucket])
  buckets!: FacetBucket[];

  @Field(() => Int, { description: 'Records in values beyond the returned buckets.' })
  sumOtherDocCount!: number;
}

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

  @Field(() => JSONScalar, { description: 'The facets in the REST contract\'s shape: `{field: {buckets: [{key, doc_count}], sum_other_doc_count, ...}}`.' })
  aggs!: Record<string, AggResult>;
}

/** `SearchMeta.facets`: `aggs` typed, read only when asked for (the REST contract reads `aggs`). */
@Resolver(() => SearchMeta)
export class SearchMetaResolver {
  @FieldResolver(() => [Facet], { description: 'The facets asked for in `aggs`, in their order.' })
  facets(@Root() meta: SearchMeta): Facet[] {
    return Object.entries(meta.aggs).map(([field, agg]) => ({
      field,
      sumOtherDocCount: agg.sum_other_doc_count,
      buckets: agg.buckets.map((b) => ({ key: String(b.key), docCount: b.doc_count })),
    }));
  }
}

/**
 * The list arguments every list field takes (PRODUCT.md section 6): `where`, `order` and `aggs` are
 * each resource's typed inputs (src/graphql/list-args.ts).
 */
export interface ListArgs {
  q?: string | null;
  where?: unknown;
  order?: unknown;
  page?: number | null;
  perPage?: number | null;
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
