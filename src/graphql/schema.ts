import path from 'node:path';
import { buildSchemaSync, type NonEmptyArray } from 'type-graphql';
import { applyMiddleware } from 'graphql-middleware';
import { shield, allow, deny } from 'graphql-shield';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { forbidden } from '../errors';
import { ProductResolver } from '../modules/product/product.resolver';
import { productPermissions } from '../modules/product/product.permissions';
import { LeadResolver } from '../modules/lead/lead.resolver';
import { LeadActivityResolver } from '../modules/lead/lead-activity.resolver';
import { leadPermissions } from '../modules/lead/lead.permissions';
import { UserResolver } from '../modules/user/user.resolver';
import { userPermissions } from '../modules/user/user.permissions';

/** Every resolver class of the schema. */
const resolvers: NonEmptyArray<Function> = [LeadResolver, LeadActivityResolver, ProductResolver, UserResolver];

/** Each resource's rule map, merged here; anything not listed is denied. */
const permissionMaps: Array<Record<string, any>> = [
  leadPermissions,
  productPermissions,
  userPermissions,
  { SearchMeta: allow },
];

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

/** Every resource's rules in one map. */
export function policies(): Record<string, any> {
  return mergePermissions(permissionMaps);
}

/** The executable schema without policies (for emitting SDL). */
export function buildBareSchema(): GraphQLSchema {
  return buildSchemaSync({ resolvers, validate: false, emitSchemaFile: false });
}

/** The executable schema with graphql-shield applied: default deny, errors passed through. */
export function buildSchema(): GraphQLSchema {
  const permissions = shield(policies(), {
    fallbackRule: deny,
    allowExternalErrors: true,
    fallbackError: () => forbidden(),
  });
  return applyMiddleware(buildBareSchema(), permissions);
}

export const SCHEMA_FILE = path.join(__dirname, '..', '..', 'schema', 'schema.graphql');

/** The SDL committed in `schema/schema.graphql`. */
export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(buildBareSchema())) + '\n';
}
