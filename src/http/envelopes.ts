import { STATUS_CODES } from 'node:http';
import type { GraphQLError } from 'graphql';
import type { ErrorCode, ErrorDetail } from '../errors';
import { isDatabaseUnavailable, outageError, RETRY_AFTER_SECONDS } from '../db/outage';

export interface HttpError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const unauthorizedBody = { error: 'Unauthorized' };

export function notFoundBody(message: string) {
  return { status: 404, error: 'Not Found', message };
}

export function badRequestBody(message: string) {
  return { status: 400, error: 'Bad Request', message };
}

/** SPEC 7's generic envelope for the statuses it does not list (408, 413, 415, 429, 431). */
export function genericBody(status: number, message: string) {
  return { status, error: STATUS_CODES[status] ?? 'Error', message };
}

/** SPEC 7's 422 envelope: `errors` (field -> short messages) for older clients, and `details`. */
export function unprocessableBody(message: string, details: ErrorDetail[], status = 422) {
  const errors: Record<string, string[]> = {};
  for (const d of details) (errors[d.field] ??= []).push(d.message);
  return {
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    errors,
    details: details.map((d) => ({ field: d.field, code: d.code, message: d.message, full_message: d.fullMessage })),
  };
}

/** The one mapping from the error vocabulary (`src/errors.ts`) to HTTP status and SPEC 7 body. */
export function httpError(code: ErrorCode, message: string, details: ErrorDetail[] = []): HttpError {
  switch (code) {
    case 'UNAUTHENTICATED':
      return { status: 401, body: unauthorizedBody };
    case 'FORBIDDEN':
      return { status: 403, body: { error: 'Unauthorized', status: 403 } };
    case 'NOT_FOUND':
      return { status: 404, body: notFoundBody(message) };
    case 'BAD_REQUEST':
    case 'QUERY_TOO_COMPLEX':
      return { status: 400, body: badRequestBody(message) };
    case 'BAD_USER_INPUT':
      return { status: 422, body: unprocessableBody(message, details) };
    case 'CONFLICT':
      // The 422 envelope's shape (`errors`, `details`) with 409 `Conflict` (docs/lead-loop.md).
      return { status: 409, body: unprocessableBody(message, details, 409) };
    case 'REQUEST_TIMEOUT':
      return { status: 408, body: genericBody(408, message) };
    case 'PAYLOAD_TOO_LARGE':
      return { status: 413, body: genericBody(413, message) };
    case 'UNSUPPORTED_MEDIA_TYPE':
      return { status: 415, body: genericBody(415, message) };
    case 'RATE_LIMITED':
      return { status: 429, body: genericBody(429, message) };
    case 'REQUEST_HEADERS_TOO_LARGE':
      return { status: 431, body: genericBody(431, message) };
    case 'SERVICE_UNAVAILABLE':
      return {
        status: 503,
        body: { status: 503, error: 'Service Unavailable', message },
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      };
    case 'INTERNAL_SERVER_ERROR':
      return { status: 500, body: { status: 500, error: 'Internal Server Error', message: 'Something went wrong' } };
  }
}

const KNOWN: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_REQUEST', 'BAD_USER_INPUT', 'CONFLICT', 'SERVICE_UNAVAILABLE']);

/** The HTTP form of the first error of a GraphQL result. */
export function httpErrorFromGraphQL(error: GraphQLError): HttpError {
  const code = error.extensions?.code;
  if (typeof code === 'string' && KNOWN.has(code)) {
    return httpError(code as ErrorCode, error.message, (error.extensions.details as ErrorDetail[]) ?? []);
  }
  return httpErrorFromUnknown(error.originalError ?? error);
}

/** An error outside the vocabulary: a database outage is a 503, anything else a 500. */
export function httpErrorFromUnknown(error: unknown): HttpError {
  if (isDatabaseUnavailable(error)) return httpError('SERVICE_UNAVAILABLE', outageError(error).message);
  return httpError('INTERNAL_SERVER_ERROR', 'Something went wrong');
}
