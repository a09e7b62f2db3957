import 'reflect-metadata';
import express, { type Express } from 'express';
import { jitGateway } from './graphql/jit';
import { keyValueCache } from './memory';
import { parsedDocuments, persistedQueries } from './graphql/documents';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { GraphQLFormattedError } from 'graphql';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import { logger } from './logger';
import { AppError } from './errors';
import { buildContext, type ContextDeps } from './context';
import { buildSchema } from './graphql/schema';
import { restRouter } from './rest/router';
import { openApiRouter } from './rest/openapi';
import { createSearchBackend } from './search/factory';
import { createGeocoder } from './geo/factory';
import { modules, openApiLists, restResources, searchDocuments } from './modules';
import { graphiqlRouter } from './graphiql/graphiql.router';
import type { Server } from 'node:http';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { createRateLimits } from './http/rate-limit';
import { jsonBody } from './http/body';
import { inTurn } from './http/in-turn';
import { graphqlCors } from './http/cors';
import { edgeErrorHandler } from './http/errors';
import { costPlugin, costValidationRules, graphqlDocumentLimits, graphqlGate } from './graphql/cost';
import { authenticate } from './auth/api-keys';
import { CallerCache } from './auth/caller-cache';
import { isDatabaseUnavailable } from './db/outage';
import { databaseReady } from './db/readiness';
import { contextUnavailable, formatUnavailable, serviceUnavailablePlugin } from './graphql/outage';
import { searchWritesPlugin } from './graphql/search-writes';
import type { SearchBackend } from './search/types';
import { requestIdMiddleware } from './observability/request-id';
import { accessLog } from './observability/access-log';
import { traceRequests } from './observability/request-span';
import { Metrics } from './observability/metrics';
import { locatorWidgetRouter } from './locator-widget/locator-widget.router';
import { baseHeaders } from './http/page-headers';
import { homeRouter } from './home/home.router';
import { startModules } from './runtime';
import { FairShare, fairSharePlugin } from './http/fair-share';

export interface App {
  app: Express;
  /** Serves GraphQL subscriptions (WebSocket, graphql-ws) on the listening server; returns their stop. */
  attach(server: Server): () => Promise<void>;
  /** Stops subscriptions, what the modules started (in list order), Apollo and the search backend (its indexer); the caller closes the ORM. */
  stop(): Promise<void>;
  /** GraphQL subscriptions registered now (they hear events from then on): what a caller may wait for. */
  subscriptions(): number;
  /** The search backend the lists use (`SEARCH_BACKEND`). */
  search: SearchBackend;
}

/** Masks unexpected errors; errors of the service's vocabulary keep their code and details. */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  // Apollo re-codes validation errors GRAPHQL_VALIDATION_FAILED; the cost rules report the service's own.
  const original = (error as any)?.originalError;
  if (original instanceof AppError && formatted.extensions?.code !== original.code) {
    const { http: _http, ...extensions } = original.extensions as Record<string, unknown>;
    return { ...formatted, extensions };
  }
  const code = formatted.extensions?.code;
  if (code === 'INTERNAL_SERVER_ERROR' || code === undefined) {
    const cause = (error as any)?.originalError ?? error;
    if (isDatabaseUnavailable(cause)) return formatUnavailable(formatted, cause);
    logger.error({ err: (error as any)?.originalError ?? error }, 'GraphQL error');
    return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  return formatted;
}

/**
 * express with /graphql (Apollo), /v1 (REST facade), /healthz, /readyz and the start page `/`; no listen. `overrides`
 * replaces context dependencies (tests pass a recording geocoder). The feature modules come from
 * src/modules/index.ts: this is where they are handed to the layers.
 */
export async function buildApp(config: Config, orm: MikroORM, overrides: Partial<Pick<ContextDeps, 'geocoder'>> = {}): Promise<App> {
  const limits = await createRateLimits(config);
  const schema = buildSchema(modules);
  const search = createSearchBackend(config, orm, searchDocuments);
  await search.start?.();
  const callers = new CallerCache(orm.config.get('clientUrl')!, config.apiKeyCacheTtlMs);
  await callers.start();
  const deps: ContextDeps = { orm, config, search, geocoder: createGeocoder(config, orm), callers };
  const fairShare = new FairShare(config.http.fairShare);
  const graphqlLimits = config.graphql;
  // The service stops Apollo itself, in order (src/lifecycle.ts): Apollo's own signal handlers would stop it first.
  const apollo = new ApolloServer({
    gateway: jitGateway(schema),
    formatError,
    introspection: graphqlLimits.introspection,
    hideSchemaDetailsFromClientErrors: !graphqlLimits.suggestions,
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: graphqlLimits.maxTokens },
    // Parsed documents and APQ texts within their memory budgets (src/memory.ts): Apollo's defaults bound
    // them by JSON length, a fraction of what a parsed document takes in the heap.
    documentStore: keyValueCache(parsedDocuments()),
    cache: keyValueCache(persistedQueries()),
    // The same bound as graphqlDocumentLimits' expanded selections (src/graphql/cost.ts), inside validation.
    maxRecursiveSelections: graphqlLimits.maxSelections,
    validationRules: costValidationRules(graphqlLimits),
    // Browsers get the locally served GraphiQL (`graphiqlRouter`), never Apollo's CDN-loaded Sandbox.
    // Cache-control hints are not used: without this, Apollo's default plugin wraps every field's
    // resolver to compute them (15% of a lead page's CPU).
    plugins: [costPlugin(graphqlLimits), fairSharePlugin(fairShare), serviceUnavailablePlugin, searchWritesPlugin, ApolloServerPluginLandingPageDisabled(), ApolloServerPluginCacheControlDisabled()],
  });
  await apollo.start();
  Object.assign(deps, overrides);
  // What the modules run beside the requests (listeners, workers), in list order; their jobs under
  // leader locks, like the search indexer: one process at a time runs each, a standby takes over.
  const runtime = { deps, schema };
  const running = await startModules(modules, runtime);
  const closers: Array<() => Promise<void>> = [];

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', config.http.trustProxy);
  const metrics = new Metrics(orm);
  app.use(traceRequests, requestIdMiddleware, accessLog(metrics), baseHeaders);
  // The API first, each in one mount (a request walks the layers of its own edge only): the HTTP edge
  // (src/http/: CORS, then rate limits, then the one JSON body parser) before any work.
  const body = jsonBody();
  const ownRoutes = modules.flatMap((m) => (m.restRoutes ? [m.restRoutes(deps)] : []));
  app.use('/v1/store_locator', limits.storeLocator);
  app.use('/v1', inTurn(...limits.api, ...body, ...limits.storeContact, restRouter(schema, deps, restResources, [openApiRouter(), ...ownRoutes], fairShare)));
  app.use(
    '/graphql',
    inTurn(graphqlCors(config.http.graphqlCorsOrigins), ...limits.api, ...body),
    graphiqlRouter(schema),
    graphqlGate((header) => authenticate(orm.em.fork() as EntityManager, header, callers)),
    graphqlDocumentLimits(graphqlLimits),
    expressMiddleware(apollo, {
      context: async ({ req, res }) =>
        buildContext(deps, req.header('x-api-key'), res.locals.caller ?? null).catch((e: unknown) => {
          throw contextUnavailable(e);
        }),
    }),
  );
  app.get('/metrics', metrics.handler(config.metricsToken));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (await databaseReady(orm)) res.json({ status: 'ok', database: 'up' });
    else res.status(503).json({ status: 'unavailable', database: 'down' });
  });
  app.use(homeRouter(orm, modules));
  for (const m of modules) if (m.routes) app.use(m.routes(runtime));
  app.use(locatorWidgetRouter(deps));
  app.use((req, res) => {
    res.status(404).json({ status: 404, error: 'Not Found', message: `No route matches ${req.method} ${req.path}` });
  });
  app.use(edgeErrorHandler);
  return {
    app,
    search,
    subscriptions: () => running.subscriptions(),
    attach(server) {
      const close = once(running.serve(server));
      closers.push(close);
      return close;
    },
    async stop() {
      await Promise.all(closers.map((close) => close()));
      await running.stop();
      await apollo.stop();
      await callers.stop();
      await search.stop?.();
      await limits.close();
    },
  };
}

/** `fn` run at most once; later calls get the first call's promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
