import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';
import { isDatabaseUnavailable, outageError } from '../db/outage';
import { httpError } from './envelopes';
import { logger } from '../logger';

/** Whether a request path is the GraphQL endpoint (case-insensitive, as express routes it), whose errors read `{ errors: [{ message, extensions: { code } }] }`. */
export function isGraphQLPath(url: string): boolean {
  return /^\/graphql(?:[/?#]|$)/i.test(url);
}

/**
 * An error of the vocabulary (`src/errors.ts`) in the style of the endpoint it answers: GraphQL's
 * `{ errors: [...] }` on /graphql, SPEC 7's envelope everywhere else. The status is the same for both.
 */
export function errorResponse(url: string, error: AppError): { status: number; body: unknown; headers?: Record<string, string> } {
  const http = httpError(error.code, error.message, error.details);
  if (!isGraphQLPath(url)) return http;
  const message = error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : error.message;
  return { ...http, body: { errors: [{ message, extensions: error.extensions }] } };
}

export function sendError(req: Request, res: Response, error: AppError): void {
  const { status, body, headers } = errorResponse(req.originalUrl, error);
  res.status(status).set(headers ?? {}).json(body);
}

/**
 * The vocabulary's form of an HTTP error raised before a handler runs (body-parser's `http-errors`, the
 * router's undecodable path): 413, 415, 400 with their own messages; undefined for anything else.
 */
export function fromHttpError(err: any): AppError | undefined {
  if (err instanceof AppError) return err;
  const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : undefined;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  if (status === 413) {
    return new AppError('PAYLOAD_TOO_LARGE', typeof err.limit === 'number' ? `Request body is larger than ${formatBytes(err.limit)}` : 'Request body is too large');
  }
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', capitalize(String(err.message)));
  if (err.type === 'entity.parse.failed') return new AppError('BAD_REQUEST', `Invalid JSON: ${err.message}`);
  return new AppError('BAD_REQUEST', capitalize(String(err.message || 'Bad request')));
}

/**
 * The last error handler of the app: client errors in the contract's style, anything else a logged
 * 500 that says nothing about its cause. Never an HTML page.
 */
export function edgeErrorHandler(err: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  // A handler may have set caching headers before it failed: an error is never kept by a cache.
  res.set('Cache-Control', 'no-store');
  const known = fromHttpError(err);
  if (known) return sendError(req, res, known);
  // A database outage met before a handler (the API key lookup of /graphql): 503 with Retry-After.
  if (isDatabaseUnavailable(err)) {
    logger.warn({ err }, 'request failed: database unavailable');
    return sendError(req, res, outageError(err));
  }
  logger.error({ err }, 'unhandled error');
  sendError(req, res, new AppError('INTERNAL_SERVER_ERROR', 'Something went wrong'));
}

function formatBytes(n: number): string {
  return n % 1_048_576 === 0 ? `${n / 1_048_576} MB` : n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
