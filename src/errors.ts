import { GraphQLError } from 'graphql';

/** A validation problem on one attribute (`base` for the record as a whole). */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  fullMessage: string;
}

export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'BAD_REQUEST'
  | 'CONFLICT'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'REQUEST_HEADERS_TOO_LARGE'
  | 'QUERY_TOO_COMPLEX'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR';

/**
 * The one error vocabulary of the service. Resolvers and services throw these; `toGraphQLError`
 * gives the GraphQL form and `src/http/envelopes.ts` the HTTP status and body.
 */
export class AppError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message, { extensions: { code, ...(details.length ? { details } : {}) } });
  }
}

export const unauthenticated = () => new AppError('UNAUTHENTICATED', 'Unauthorized');
export const forbidden = () => new AppError('FORBIDDEN', 'Unauthorized');
export const badRequest = (message: string) => new AppError('BAD_REQUEST', message);

/**
 * A GraphQL document over one of the cost limits (src/graphql/cost.ts): the message names the limit,
 * its value and its configuration key; `extensions.limit` and `extensions.maximum` say the same.
 */
export function queryTooComplex(limit: string, maximum: number, actual: number | null, configKey: string): AppError {
  const found = actual === null ? '' : ` (found ${actual})`;
  const e = new AppError('QUERY_TOO_COMPLEX', `Query ${limit} exceeds the limit of ${maximum}${found}; see ${configKey}`);
  Object.assign(e.extensions, { limit, maximum, http: { status: 400 } });
  return e;
}
/**
 * The database cannot be reached or did not answer in time (`src/db/outage.ts`): a 503 with `Retry-After`.
 * A statement cancelled at its time bound (`timedOut`, `isStatementTimeout`) says so: the database is up,
 * and the same request may time out again (a costly filter, a table locked by a migration), so the client
 * learns to narrow it, not only to wait.
 */
export const serviceUnavailable = (timedOut = false) =>
  new AppError(
    'SERVICE_UNAVAILABLE',
    timedOut
      ? 'The request did not finish within its time bound (a database statement was cancelled); narrow its filters or retry later'
      : 'The service is temporarily unavailable (database unreachable); retry later',
  );

/**
 * A write that lost to concurrent writes on every attempt (`transactional()`, src/db/write.ts): PostgreSQL
 * broke a deadlock (40P01) or a serialization conflict (40001) by rolling it back, so nothing of it was
 * stored: a 503 with `Retry-After`, and the same request sent again may succeed.
 */
export const writeConflict = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The write conflicted with concurrent writes and was not stored; retry later');

/**
 * The search engine cannot be reached or cannot answer now (`src/search/elasticsearch/unavailable.ts`):
 * a list on the engine backend answers 503 with `Retry-After`, as a database outage does.
 */
export const searchUnavailable = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable (search engine unreachable); retry later');

/**
 * The record is not in a state that allows the write (an offer already answered, or not the caller's
 * store's): 409 with the 422 envelope's `errors` and `details` (src/http/envelopes.ts).
 */
export const conflict = (message: string, details: ErrorDetail[]) => new AppError('CONFLICT', message, details);

/** `Couldn't find Lead with 'id'=<id>`, the message partners already match on. */
export const notFound = (type: string, id: string) =>
  new AppError('NOT_FOUND', `Couldn't find ${type} with 'id'=${id}`);

/** Rails-style humanized attribute name: `company_id` -> `Company`, `sku` -> `Sku`. */
export function humanize(field: string): string {
  if (field === 'base') return '';
  const words = field.replace(/_id$/, '').replace(/\./g, ' ').replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function detail(field: string, code: string, message: string): ErrorDetail {
  const name = humanize(field);
  return { field, code, message, fullMessage: name ? `${name} ${message}` : message };
}

const MESSAGES: Record<string, string> = {
  blank: "can't be blank",
  taken: 'has already been taken',
  invalid: 'is invalid',
  missing: 'is missing',
  unpermitted: 'is not permitted',
  too_long: 'is too long',
  too_short: 'is too short',
  inclusion: 'is not included in the list',
  restrict_dependent_destroy: 'Failed to destroy the record',
};

export function validationDetail(field: string, code: string, message = MESSAGES[code] ?? 'is invalid'): ErrorDetail {
  return detail(field, code, message);
}

/** A 422: one or more attribute errors. */
export function invalid(details: ErrorDetail[]): AppError {
  const message = details.map((d) => d.fullMessage).join(', ');
  return new AppError('BAD_USER_INPUT', `Validation failed: ${message}`, details);
}

/** PRODUCT.md section 4: a destroy refused while dependent records exist (422 `restrict_dependent_destroy` on `base`). */
export function destroyHalted(): AppError {
  const message = MESSAGES.restrict_dependent_destroy;
  return new AppError('BAD_USER_INPUT', message, [validationDetail('base', 'restrict_dependent_destroy', message)]);
}

/** Collects attribute errors and throws them all at once. */
export class Validator {
  readonly details: ErrorDetail[] = [];
  add(field: string, code: string, message?: string): this {
    this.details.push(validationDetail(field, code, message));
    return this;
  }
  get ok(): boolean {
    return this.details.length === 0;
  }
  throwIfAny(): void {
    if (!this.ok) throw invalid(this.details);
  }
}
