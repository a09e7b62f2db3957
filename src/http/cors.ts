import type { RequestHandler } from 'express';
import cors from 'cors';

/**
 * CORS for /graphql: only the configured origins, with the headers a GraphQL call sends (`X-Api-Key`,
 * `Content-Type`), no cookies. With no origins configured there are no CORS headers at all, and
 * browsers keep to same-origin. (The store locator answers any origin; see its router.)
 */
export function graphqlCors(origins: readonly string[]): RequestHandler {
  if (origins.length === 0) return (_req, _res, next) => next();
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST'],
    allowedHeaders: ['Content-Type', 'X-Api-Key', 'Apollo-Require-Preflight'],
    exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After'],
    credentials: false,
    maxAge: 600,
  });
}
