import type { Request } from 'express';

/**
 * The route pattern that served a request (`/v1/leads/:id`), never the raw URL, so logs and metrics
 * group by endpoint and ids do not multiply label values. A request no route matched is `unmatched`.
 */
export function routeOf(req: Request, status: number): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  // Middleware mounted on a path (/graphql, a CORS preflight) leaves its mount path in baseUrl.
  if (req.baseUrl && status !== 404) return req.baseUrl;
  return 'unmatched';
}
