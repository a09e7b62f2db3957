import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { ContextDeps } from '../context';
import { notFoundBody } from '../http/envelopes';
import { httpErrorOf, RestExecutor } from './executor';
import { OperationRegistry } from './operations';
import { resourceRouter, type RestResource } from './resource';
import type { FairShare } from '../http/fair-share';
/** The REST facade: SPEC 4.2 routes over in-process GraphQL, with SPEC 7 errors for everything. */
/**
 * `resources`: the /v1 resources of the modules, in SPEC 4.2 order; `extra`: the routes of the facade's own
 * (the OpenAPI document and reference, the store locator), for the paths no resource serves. A request
 * goes straight to the router of the resource its first path segment names (case-insensitive, as
 * express's routes): the table of resources is a lookup, not a chain of routers every request walks.
 */
export function restRouter(schema: GraphQLSchema, deps: ContextDeps, resources: readonly RestResource[], extra: Router[] = [], fairShare?: FairShare): RequestHandler {
  const operations = new OperationRegistry(schema);
  const executor = new RestExecutor(schema, operations, deps, fairShare);
  const routers = new Map<string, Router>();
  for (const resource of resources) routers.set(resource.path.toLowerCase(), resourceRouter(resource, schema, executor, () => deps.config.strictParams));
  // Everything else: the facade's own routes, then 404; and every error's SPEC 7 body.
  const rest = Router();
  for (const r of extra) rest.use(r);
  rest.use((req: Request, res: Response) => {
    res.status(404).json(notFoundBody(`No route matches ${req.method} ${req.baseUrl}${req.path}`));
  });
  rest.use(restErrorHandler);
  return (req, res, next) => {
    const resource = routers.get(firstSegment(req.path));
    if (!resource) return rest(req, res, next);
    resource(req, res, (err?: unknown) => {
      if (err != null && err !== 'route' && err !== 'router') restErrorHandler(err, req, res, next);
      else rest(req, res, next);
    });
  };
}

/** `/products` of `/products/123` (lower case). */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end < 0 ? path : path.slice(0, end)).toLowerCase();
}

/** Every error of a /v1 request ends here as a SPEC 7 body; nothing escapes as an HTML page. */
export function restErrorHandler(err: any, _req: Request, res: Response, _next: NextFunction): void {
  // The vocabulary's own errors, and HTTP errors raised before a handler (an undecodable path...).
  const http = httpErrorOf(err);
  res.status(http.status).set(http.headers ?? {}).json(http.body);
}
