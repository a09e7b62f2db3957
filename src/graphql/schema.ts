import path from 'node:path';
import { buildSchemaSync, type NonEmptyArray } from 'type-graphql';
import { applyMiddleware, type IMiddlewareFieldMap } from 'graphql-middleware';
import { shield, allow, deny } from 'graphql-shield';
import { lexicographicSortSchema, printSchema, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { checkRootArgs } from '../limits';
import { forbidden } from '../errors';
import { SearchMetaResolver } from './common';
import { ProductResolver } from '../modules/product/product.resolver';
import { productPermissions } from '../modules/product/product.permissions';
import { LeadResolver } from '../modules/lead/lead.resolver';
import { LeadActivityResolver } from '../modules/lead/lead-activity.resolver';
import { leadPermissions } from '../modules/lead/lead.permissions';
import { UserResolver } from '../modules/user/user.resolver';
import { userPermissions } from '../modules/user/user.permissions';

import { CompanyRetailerResolver } from '../modules/company-retailer/company-retailer.resolver';
import { companyRetailerPermissions } from '../modules/company-retailer/company-retailer.permissions';
import { CompanyRetailerLocationResolver } from '../modules/company-retailer-location/company-retailer-location.resolver';
import { crlPermissions } from '../modules/company-retailer-location/company-retailer-location.permissions';
import { CompanyResolver } from '../modules/company/company.resolver';
import { companyPermissions } from '../modules/company/company.permissions';
import { RetailerResolver } from '../modules/retailer/retailer.resolver';
import { retailerPermissions } from '../modules/retailer/retailer.permissions';
import { RetailerLocationResolver } from '../modules/retailer-location/retailer-location.resolver';
import { retailerLocationPermissions } from '../modules/retailer-location/retailer-location.permissions';
import { TerritoryResolver } from '../modules/territory/territory.resolver';
import { territoryPermissions } from '../modules/territory/territory.permissions';
import { CompanyStoreTypeResolver } from '../modules/company-store-type/company-store-type.resolver';
import { companyStoreTypePermissions } from '../modules/company-store-type/company-store-type.permissions';
import { CollectionResolver } from '../modules/collection/collection.resolver';
import { collectionPermissions } from '../modules/collection/collection.permissions';
import { ProductImageResolver, ProductImagesFieldResolver } from '../modules/product/product-image.resolver';
import { productImagePermissions } from '../modules/product/product-image.permissions';
import { StockResolver, CrlStocksFieldResolver } from '../modules/product/stock.resolver';
import { stockPermissions } from '../modules/product/stock.permissions';
import { contactPermissions } from '../modules/contact/contact.permissions';
import { LeadEventResolver } from '../modules/lead-events/lead-events.resolver';
import { leadEventPermissions } from '../modules/lead-events/lead-events.permissions';
import { RoutingResolver } from '../modules/routing/routing.resolver';
import { routingPermissions } from '../modules/routing/routing.permissions';
import { WebhookDeliveryFieldResolver, WebhookResolver } from '../modules/webhooks/webhook.resolver';
import { webhookPermissions } from '../modules/webhooks/webhook.permissions';
import { ImportResolver } from '../modules/import/import.resolver';
import { importPermissions } from '../modules/import/import.permissions';

/** Every resolver class of the schema. */
const resolvers: NonEmptyArray<Function> = [
  SearchMetaResolver,
  LeadResolver,
  LeadActivityResolver,
  UserResolver,
  ProductResolver,
  CompanyRetailerResolver,
  CompanyRetailerLocationResolver,
  CompanyResolver,
  RetailerResolver,
  RetailerLocationResolver,
  TerritoryResolver,
  CompanyStoreTypeResolver,
  CollectionResolver,
  ProductImageResolver,
  ProductImagesFieldResolver,
  StockResolver,
  CrlStocksFieldResolver,
  LeadEventResolver,
  RoutingResolver,
  WebhookResolver,
  WebhookDeliveryFieldResolver,
  ImportResolver,
];

/** Each resource's rule map, merged here; anything not listed is denied. */
const permissionMaps: Array<Record<string, any>> = [
  leadPermissions,
  productPermissions,
  userPermissions,
  companyRetailerPermissions,
  crlPermissions,
  companyPermissions,
  retailerPermissions,
  retailerLocationPermissions,
  territoryPermissions,
  companyStoreTypePermissions,
  collectionPermissions,
  productImagePermissions,
  stockPermissions,
  contactPermissions,
  leadEventPermissions,
  routingPermissions,
  webhookPermissions,
  importPermissions,
  { SearchMeta: allow, Facet: allow, FacetBucket: allow },
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

/** The lists that have a cursor connection (`<list>Connection`), with their node types. */
const CONNECTIONS: Record<string, string> = {
  leads: 'Lead',
  leadActivities: 'LeadActivity',
  products: 'Product',
  companyRetailers: 'CompanyRetailer',
  companyRetailerLocations: 'CompanyRetailerLocation',
  companies: 'Company',
  retailers: 'Retailer',
  retailerLocations: 'RetailerLocation',
  users: 'User',
  territories: 'Territory',
  companyStoreTypes: 'CompanyStoreType',
  collections: 'Collection',
};
const CONNECTION_TYPES = ['PageInfo', ...Object.values(CONNECTIONS).flatMap((node) => [`${node}Connection`, `${node}Edge`])];

/**
 * Every resource's rules in one map. A cursor connection (`leadsConnection`) is its list (`leads`) read
 * by cursors: it has the list's rule, and its connection, edge and page-info types are open like a page's.
 */
export function policies(): Record<string, any> {
  const merged = mergePermissions(permissionMaps);
  for (const list of Object.keys(CONNECTIONS)) merged.Query[`${list}Connection`] = merged.Query[list];
  for (const type of CONNECTION_TYPES) merged[type] = allow;
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

/** The executable schema without policies (for emitting SDL). */
export function buildBareSchema(): GraphQLSchema {
  return buildSchemaSync({ resolvers, validate: false, emitSchemaFile: false, pubSub: NO_PUBSUB });
}

/** The executable schema with graphql-shield applied: default deny, errors passed through. */
export function buildSchema(): GraphQLSchema {
  const rules = policies();
  const schema = buildBareSchema();
  const permissions = shield(rules, {
    fallbackRule: deny,
    allowExternalErrors: true,
    fallbackError: () => forbidden(),
  });
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
export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(buildBareSchema())) + '\n';
}
