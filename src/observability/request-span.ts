import type { NextFunction, Request, Response } from 'express';
import { contextOf, SpanKind, SpanStatusCode, startSpan, tracingOn, withSpan } from '../tracing';
import { routeOf } from './route';

/**
 * The server span of an HTTP request, when tracing is on: a child of the caller's `traceparent` when it
 * sends one (a partner's trace goes on through leadnet), named by the route pattern once routed
 * (`POST /v1/leads`), never by the raw URL. Its attributes are the method, path, route, status and the
 * request's id; never the query string, the body or the client's address (they can be personal data).
 */
export function traceRequests(req: Request, res: Response, next: NextFunction): void {
  if (!tracingOn()) return next();
  const span = startSpan(req.method, {
    kind: SpanKind.SERVER,
    parent: contextOf(req.headers),
    attributes: { 'http.request.method': req.method, 'url.path': req.path, 'url.scheme': req.protocol },
  });
  if (!span) return next();
  const end = () => {
    const route = routeOf(req, res.statusCode);
    span.updateName(`${req.method} ${route}`);
    span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode, 'leadnet.request_id': String(res.getHeader('X-Request-Id') ?? '') });
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!res.writableFinished) span.setAttribute('error.type', 'aborted');
    span.end();
  };
  res.once('close', end);
  withSpan(span, next);
}
