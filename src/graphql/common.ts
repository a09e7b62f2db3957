import { Field, FieldResolver, Int, ObjectType, Resolver, Root, type ClassType } from 'type-graphql';
import type { AggResult } from '../search/types';
import type { Page, PageMeta } from '../search/list';
import { type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { GraphQLUUID } from 'graphql-scalars';
import { JSONScalar } from '../search/json-scalar';

export { JSONScalar } from '../search/json-scalar';
export { GraphQLUUID as UUIDScalar };

@ObjectType({ description: 'One value of a facet and how many records of the list hold it.' })
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

  @Field(() => [FacetBucket], { description: 'The values, in the order asked (default: most records first), at most `limit`.' })
  buckets!: FacetBucket[];

  @Field(() => Int, { description: 'Records in values beyond the returned buckets.' })
  sumOtherDocCount!: number;
}

/** SPEC 2.8 `SearchMeta`. */
@ObjectType({ description: "A page's place in its list: counts over the whole list (the filter and the caller's scope) and the facets asked for." })
export class SearchMeta implements PageMeta {
  @Field(() => Int, { description: 'Records in the whole list (every page), exact.' })
  total!: number;

  @Field(() => Int, { description: 'This page, from 1.' })
  page!: number;

  @Field(() => Int, { description: 'Records per page (the `perPage` asked, default 50, at most 500).' })
  perPage!: number;

  @Field(() => Int, { description: 'Pages in the list at this page size (0 for an empty list).' })
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

export type { ListArgs, Page } from '../search/list';

/** `{ nodes: [T], meta: SearchMeta }` for one node type. */
export function PageType<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(name, { description: `One page of ${node.name} records, by page number, with the counts and facets of the whole list.` })
  class PageClass implements Page<T> {
    @Field(() => [node], { description: 'The records of this page, in list order.' })
    nodes!: T[];

    @Field(() => SearchMeta, { description: 'Counts, page numbers and facets of the whole list.' })
    meta!: SearchMeta;
  }
  return PageClass;
}

/** GraphiQL's first page: what each root type holds. type-graphql builds the roots, so they are described here. */
export function describeRoots(schema: GraphQLSchema): GraphQLSchema {
  const roots: Array<[GraphQLObjectType | null | undefined, string]> = [
    [schema.getQueryType(), "Reads. Every list and record is limited to what the caller's API key may see (PRODUCT.md 3): a record outside it is NOT_FOUND, as one that does not exist."],
    [schema.getMutationType(), 'Writes. A visible record the role may not change is FORBIDDEN; invalid input is BAD_USER_INPUT with `details` per field.'],
    [schema.getSubscriptionType(), 'Live events over WebSocket (graphql-ws protocol at `/graphql`), only about records the caller may see.'],
  ];
  for (const [root, description] of roots) if (root) root.description = description;
  return schema;
}
