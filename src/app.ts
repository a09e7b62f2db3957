import 'reflect-metadata';
import express, { type Express } from 'express';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { GraphQLFormattedError } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import { logger } from './logger';
import { buildContext, type ContextDeps } from './context';
import { buildSchema } from './graphql/schema';
import { restRouter } from './rest/router';
import { openApiRouter } from './rest/openapi';
import { createSearchBackend } from './search/factory';
import { createGeocoder } from './geo/factory';
import { storeLocatorRouter } from './modules/store-locator/store-locator.router';
import { locatorWidgetRouter } from './locator-widget/locator-widget.router';

export interface App {
  app: Express;
  /** Stops Apollo and the search backend (its indexer); the caller closes the ORM. */
  stop(): Promise<void>;
}

/** Masks unexpected errors; errors of the service's vocabulary keep their code and details. */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const code = formatted.extensions?.code;
  if (code === 'INTERNAL_SERVER_ERROR' || code === undefined) {
    logger.error({ err: (error as any)?.originalError ?? error }, 'GraphQL error');
    return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  return formatted;
}

/**
 * express with /graphql (Apollo), /v1 (REST facade), /healthz and /readyz; no listen. `overrides`
 * replaces context dependencies (tests pass a recording geocoder).
 */
export async function buildApp(config: Config, orm: MikroORM, overrides: Partial<Pick<ContextDeps, 'geocoder'>> = {}): Promise<App> {
  const schema = buildSchema();
  const search = createSearchBackend(config, orm);
  await search.start?.();
  const deps: ContextDeps = { orm, config, search, geocoder: createGeocoder(config) };
  const apollo = new ApolloServer({ schema, formatError, introspection: true, includeStacktraceInErrorResponses: false });
  await apollo.start();
  Object.assign(deps, overrides);

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      await orm.em.getConnection().execute('select 1');
      res.json({ status: 'ok', database: 'up' });
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'down' });
    }
  });
  app.use(
    '/graphql',
    express.json({ limit: '1mb' }),
    expressMiddleware(apollo, { context: async ({ req }) => buildContext(deps, req.header('x-api-key')) }),
  );
  app.use('/v1', restRouter(schema, deps, [openApiRouter(), storeLocatorRouter(deps)]));
  app.use(locatorWidgetRouter(deps));
  app.use((req, res) => {
    res.status(404).json({ status: 404, error: 'Not Found', message: `No route matches ${req.method} ${req.path}` });
  });
  return {
    app,
    async stop() {
      await apollo.stop();
      await search.stop?.();
    },
  };
}
