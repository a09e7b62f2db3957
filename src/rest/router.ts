import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { logger } from '../logger';
import type { GraphQLSchema } from 'graphql';
import type { ContextDeps } from '../context';
import { httpError, httpErrorFromUnknown, notFoundBody } from '../http/envelopes';
import { fromHttpError } from '../http/errors';
import { RestExecutor, RestError } from './executor';
import { OperationRegistry } from './operations';
import { resourceRouter, type RestResource } from './resource';
import type { FairShare } from '../http/fair-share';
/** The REST facade: SPEC 4.2 routes over in-process GraphQL, with SPEC 7 errors for everything. */
/** `resources`: the /v1 resources of the modules, in SPEC 4.2 order. */
export function restRouter(schema: GraphQLSchema, deps: ContextDeps, resources: readonly RestResource[], extra: Router[] = [], fairShare?: FairShare): Router {
  const operations = new OperationRegistry(schema);
  const executor = new RestExecutor(schema, operations, deps, fairShare);
  const router = Router();
  for (const r of extra) router.use(r);
  for (const resource of resources) router.use(underPath(resource.path, resourceRouter(resource, schema, executor, () => deps.config.strictParams)));
  router.use((req: Request, res: Response) => {
    res.status(404).json(notFoundBody(`No route matches ${req.method} ${req.baseUrl}${req.path}`));
  });
  router.use(restErrorHandler);
  return router;
}

/**
 * `handler` for the requests under `path` (the path itself or below it, case-insensitive as express
 * routes are); the others skip it at once instead of trying each of its routes in turn.
 */
export function underPath(path: string, handler: Router): RequestHandler {
  const prefix = path.toLowerCase();
  return (req, res, next) => {
    const p = req.path;
    const under = p.length >= prefix.length && p.slice(0, prefix.length).toLowerCase() === prefix && (p.length === prefix.length || p[prefix.length] === '/');
    if (under) handler(req, res, next);
    else next();
  };
}

/** Every error of a /v1 request ends here as a SPEC 7 body; nothing escapes as an HTML page. */
export function restErrorHandler(err: any, _req: Request, res: Response, _next: NextFunction): void {
  if (err instanceof RestError) {
    res.status(err.http.status).set(err.http.headers ?? {}).json(err.http.body);
    return;
  }
  // The vocabulary's own errors, and HTTP errors raised before a handler (an undecodable path...).
  const known = fromHttpError(err);
  const http = known ? httpError(known.code, known.message, known.details) : httpErrorFromUnknown(err);
  if (!known && http.status === 503) logger.warn({ err }, 'REST request failed: database unavailable');
  else if (!known) logger.error({ err }, 'unhandled REST error');
  res.status(http.status).set(http.headers ?? {}).json(http.body);
}
