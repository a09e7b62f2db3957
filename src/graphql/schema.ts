import path from 'node:path';
import { buildSchemaSync, getMetadataStorage, type NonEmptyArray } from 'type-graphql';
import { applyMiddleware, type IMiddlewareFieldMap } from 'graphql-middleware';
import { allow } from 'graphql-shield';
import { isObjectType, lexicographicSortSchema, printSchema, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { checkRootArgs } from '../limits';
import { shieldOf, shieldRules } from '../access/shield';
import type { ResourcePolicy } from '../access/policy';
import { describeRoots, SearchMetaResolver } from './common';
/**
 * What one feature module gives the GraphQL schema: its resolver classes, its policies' graphql-shield
 * rule maps (each type's fields; anything not listed is denied) and its lists that have a cursor
 * connection (`leads` -> `Lead`: `leadsConnection` with `LeadConnection` and `LeadEdge`).
 */
export interface GraphqlContribution {
  resolvers?: readonly Function[];
  policies?: readonly ResourcePolicy<any, any, any>[];
  connections?: Readonly<Record<string, string>>;
}

/** The schema's own resolvers and rules, beside those of the modules. */
const OWN = {
  resolvers: [SearchMetaResolver],
  rules: { SearchMeta: allow, Facet: allow, FacetBucket: allow },
};

function resolversOf(modules: readonly GraphqlContribution[]): NonEmptyArray<Function> {
  return [OWN, ...modules].flatMap((m) => m.resolvers ?? []) as unknown as NonEmptyArray<Function>;
}

export function mergePermissions(maps: Array<Record<string, any>>): Record<string, any> {
  const merged: Record<string, any> = {};
  for (const map of maps) {
    for (const [type, rules] of Object.entries(map)) {
      if (typeof rules === 'object' && rules !== null && !('resolve' in rules) && typeof merged[type] === 'object') {
        merged[type] = { ...merged[type], ...rules };
      } else {
        merged[type] = rules;
      }
    }
  }
  return merged;
}

/**
 * Every resource's rules in one map. A cursor connection (`leadsConnection`) is its list (`leads`) read
 * by cursors: it has the list's rule, and its connection, edge and page-info types are open like a page's.
 */
export function policies(modules: readonly GraphqlContribution[]): Record<string, any> {
  const merged = mergePermissions([shieldRules(modules.flatMap((m) => m.policies ?? [])), OWN.rules]);
  const connections: Record<string, string> = Object.assign({}, ...modules.map((m) => m.connections ?? {}));
  for (const list of Object.keys(connections)) merged.Query[`${list}Connection`] = merged.Query[list];
  const types = ['PageInfo', ...Object.values(connections).flatMap((node) => [`${node}Connection`, `${node}Edge`])];
  for (const type of types) merged[type] = allow;
  return merged;
}

/**
 * type-graphql insists on a PubSub once a schema has subscriptions; each of ours brings its own stream
 * (`subscribe`), fed by PostgreSQL across processes, so this one is never used.
 */
const NO_PUBSUB = {
  publish(): never {
    throw new Error('subscriptions use their own streams (LeadEventHub), not a PubSub');
  },
  subscribe(): never {
    throw new Error('subscriptions use their own streams (LeadEventHub), not a PubSub');
  },
};

/**
 * A field without a resolver method of its own reads its property, as graphql-js's default resolver does
 * (`simple` in type-graphql's terms). type-graphql's own resolver for such a field only runs its middlewares
 * (the service uses none: graphql-shield wraps the fields it guards) before reading the property, but it
 * is a function call per value that graphql-jit cannot compile into a property read: a page of 50 rows of
 * 10 fields made 500 of them. A field whose GraphQL name is not its property name keeps type-graphql's.
 */
function readPropertiesDirectly(): void {
  for (const field of getMetadataStorage().fields) {
    if (field.simple === undefined && field.schemaName === field.name && !field.middlewares?.length && !field.roles) field.simple = true;
  }
}

/**
 * A getter field (`get companyId() { return this.company.id; }` on an entity) reads its property too: on an
 * instance the property read runs the getter. type-graphql resolves such a field by first converting the
 * value into an instance of the class (a new entity for a plain object), then reading the getter, a
 * resolver call per value that graphql-jit cannot compile away: a product page made 100 of them. Every value
 * of an entity type is an instance of its class (a MikroORM entity, or a read-model row built in its
 * prototype: src/db/columns.ts) or, typed as the class, carries each getter field's value as a property
 * (TypeScript requires it of a plain object without a cast).
 */
function readGettersDirectly(schema: GraphQLSchema): void {
  const storage = getMetadataStorage();
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const resolver of storage.fieldResolvers) {
      if (resolver.kind !== 'internal' || resolver.params?.length || resolver.middlewares?.length || resolver.roles) continue;
      if (resolver.target !== objectType.target && !(objectType.target.prototype instanceof (resolver.target as Function))) continue;
      const field = fields[resolver.schemaName];
      if (field && resolver.schemaName === resolver.methodName && isGetter(objectType.target.prototype, resolver.methodName)) field.resolve = undefined;
    }
  }
}

function isGetter(prototype: object, name: string): boolean {
  for (let p: object | null = prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const descriptor = Object.getOwnPropertyDescriptor(p, name);
    if (descriptor) return descriptor.get !== undefined;
  }
  return false;
}

/** The executable schema without policies (for emitting SDL). */
export function buildBareSchema(modules: readonly GraphqlContribution[]): GraphQLSchema {
  readPropertiesDirectly();
  const schema = describeRoots(buildSchemaSync({ resolvers: resolversOf(modules), validate: false, emitSchemaFile: false, pubSub: NO_PUBSUB }));
  readGettersDirectly(schema);
  return schema;
}

/** The executable schema with graphql-shield applied: default deny, errors passed through. */
export function buildSchema(modules: readonly GraphqlContribution[]): GraphQLSchema {
  const rules = policies(modules);
  const schema = buildBareSchema(modules);
  const permissions = shieldOf(rules);
  const bounded = (resolve: any, parent: unknown, args: Record<string, unknown>, ctx: unknown, info: GraphQLResolveInfo) => {
    checkRootArgs(info, args);
    return resolve(parent, args, ctx, info);
  };
  return applyMiddleware(
    schema,
    withoutAllowedFields(permissions.generate(schema) as IMiddlewareFieldMap, rules),
    { Query: bounded, Mutation: bounded },
  );
}

/**
 * graphql-shield wraps every field in an async middleware, even those whose rule is `allow`, which
 * turns each scalar of a 500-row page into a promise. Those wrappers decide nothing, so they are
 * dropped; every field with another rule, or none (the deny fallback), keeps its wrapper.
 */
export function withoutAllowedFields(middleware: IMiddlewareFieldMap, rules: Record<string, any>): IMiddlewareFieldMap {
  const kept: IMiddlewareFieldMap = {};
  for (const [type, fields] of Object.entries(middleware)) {
    const typeRules = rules[type];
    if (typeRules === allow) continue;
    const remaining = Object.fromEntries(
      Object.entries(fields as Record<string, unknown>).filter(([field]) => !(typeof typeRules === 'object' && typeRules?.[field] === allow)),
    );
    if (Object.keys(remaining).length) kept[type] = remaining as IMiddlewareFieldMap[string];
  }
  return kept;
}

export const SCHEMA_FILE = path.join(__dirname, '..', '..', 'schema', 'schema.graphql');

/** The SDL committed in `schema/schema.graphql`. */
export function printedSchema(modules: readonly GraphqlContribution[]): string {
  return printSchema(lexicographicSortSchema(buildBareSchema(modules))) + '\n';
}
