import { createHash } from 'node:crypto';
import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import type { EntityClass, FilterQuery } from '@mikro-orm/postgresql';
import type { Context } from '../context';
import { AppError } from '../errors';
import { ListOptions } from '../search/list-args';
import { hiddenFields } from '../search/list';
import { MAX_PER_PAGE, DEFAULT_PER_PAGE, type SearchDocument, type Where } from '../search/types';

/**
 * What a connection lists: `q`, `where` and `order` as the page lists take them (no page, no facets);
 * each resource's typed arguments (`listInputs(...).FilterArgs`).
 */
export interface ConnectionFilterArgs {
  q?: string | null;
  where?: unknown;
  order?: unknown;
}

/** Relay cursor arguments. */
@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, { nullable: true, description: `The first n records (after \`after\`); default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}.` })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'A cursor (an `endCursor` or edge `cursor`) of the same list and order.' })
  after?: string | null;

  @Field(() => Int, { nullable: true, description: `The last n records (before \`before\`, or of the whole list); at most ${MAX_PER_PAGE}.` })
  last?: number | null;

  @Field(() => String, { nullable: true, description: 'A cursor (a `startCursor` or edge `cursor`) of the same list and order: the records before it.' })
  before?: string | null;
}

@ObjectType({ description: 'Where a cursor page sits in its list (Relay).' })
export class PageInfo {
  @Field(() => Boolean, { description: 'More records follow this page (pass `endCursor` as `after`).' })
  hasNextPage!: boolean;

  @Field(() => Boolean, { description: 'Records precede this page (pass `startCursor` as `before`).' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the first record of the page; null when the page is empty.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'The cursor of the last record of the page; null when the page is empty.' })
  endCursor!: string | null;
}

export interface Connection<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: PageInfo;
  totalCount: number;
}

/** `{ edges { cursor node }, nodes, pageInfo, totalCount }` for one node type. */
export function ConnectionType<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { description: `One ${name} record of a cursor page, with its cursor.` })
  class Edge {
    @Field(() => String, { description: 'Opaque; pass it as `after` or `before` to page from this record (same list and order only).' })
    cursor!: string;

    @Field(() => node, { description: 'The record.' })
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description: `${name} records by Relay cursors (keyset: every page costs what the first costs).` })
  class ConnectionClass implements Connection<T> {
    @Field(() => [Edge], { description: 'The records of the page with their cursors, in list order.' })
    edges!: Array<{ cursor: string; node: T }>;

    @Field(() => [node], { description: 'The records of the page, in list order (`edges` without cursors).' })
    nodes!: T[];

    @Field(() => PageInfo, { description: 'Whether more records follow or precede, and the cursors to reach them.' })
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'Every record of the list (the filter and the caller\'s scope), exact.' })
    totalCount!: number;
  }
  return ConnectionClass;
}

const badCursor = () => new AppError('BAD_USER_INPUT', 'The cursor is not one of this list and order: ask for the first page again');

/**
 * One page of a list by cursors: the ids (keyset search, scope included), their cursors and the page
 * info. A cursor is opaque (base64url JSON): the sort values of its record and a fingerprint of the
 * resource, order and `q`, so a cursor of another list or order is refused; a changed `where` goes on
 * from the same place in the new list.
 */
export async function connectionPage(
  ctx: Context,
  doc: SearchDocument,
  scope: Where,
  filter: ConnectionFilterArgs,
  paging: ConnectionArgs,
): Promise<{ ids: string[]; cursors: string[]; pageInfo: PageInfo; totalCount: number }> {
  const { first, after, last, before } = paging;
  if (first != null && last != null) throw new AppError('BAD_USER_INPUT', 'Ask for `first` or `last`, not both');
  for (const [name, n] of [['first', first], ['last', last]] as const) {
    if (n != null && (n < 0 || n > MAX_PER_PAGE)) throw new AppError('BAD_USER_INPUT', `\`${name}\` must be from 0 to ${MAX_PER_PAGE}`);
  }
  const backward = last != null || (before != null && first == null);
  const size = (backward ? last : first) ?? DEFAULT_PER_PAGE;
  const hidden = hiddenFields(doc, ctx.caller);
  const { where, order } = new ListOptions(doc, hidden).read(filter);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([doc.name, order ?? null, filter.q ?? null]))
    .digest('base64url')
    .slice(0, 12);
  const decode = (cursor: string): unknown[] => {
    try {
      const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (parsed?.f === fingerprint && Array.isArray(parsed.v)) return parsed.v;
    } catch {
      // refused below
    }
    throw badCursor();
  };
  const from = backward ? before : after;
  const result = await ctx.search.search(doc, {
    q: filter.q,
    where,
    order,
    page: 1,
    perPage: size + 1,
    scope,
    hidden,
    keyset: { after: from ? decode(from) : null, backward },
  });
  const more = result.ids.length > size;
  // One row more than asked says whether the list goes on; backward it is the first of the list order.
  const keep = (list: unknown[]) => (!more ? list : backward ? list.slice(1) : list.slice(0, size));
  const ids = keep(result.ids) as string[];
  const cursors = (keep(result.sortValues ?? []) as unknown[][]).map((v) => Buffer.from(JSON.stringify({ f: fingerprint, v })).toString('base64url'));
  return {
    ids,
    cursors,
    totalCount: result.total,
    pageInfo: {
      hasNextPage: backward ? before != null : more,
      hasPreviousPage: backward ? more : after != null,
      startCursor: cursors[0] ?? null,
      endCursor: cursors[cursors.length - 1] ?? null,
    },
  };
}

/** A connection of entities: the keyset page, then the records in one statement, in list order. */
export async function listConnection<T extends { id: string }>(
  ctx: Context,
  doc: SearchDocument,
  entity: EntityClass<T>,
  scope: Where,
  filter: ConnectionFilterArgs,
  paging: ConnectionArgs,
): Promise<Connection<T>> {
  const page = await connectionPage(ctx, doc, scope, filter, paging);
  const rows = page.ids.length ? ((await ctx.em.find(entity, { id: { $in: page.ids } } as unknown as FilterQuery<T>)) as T[]) : [];
  return connectionOf(page, rows);
}

/** The connection of a page whose records were read (any order); records gone since the search are left out. */
export function connectionOf<T extends { id: string }>(page: { ids: string[]; cursors: string[]; pageInfo: PageInfo; totalCount: number }, rows: T[]): Connection<T> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const edges = page.ids.flatMap((id, i) => (byId.has(id) ? [{ cursor: page.cursors[i], node: byId.get(id)! }] : []));
  return { edges, nodes: edges.map((e) => e.node), pageInfo: page.pageInfo, totalCount: page.totalCount };
}
