import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of a request carries (src/logger.ts reads it through a pino mixin). */
export interface RequestContext {
  reqId: string;
  /** At LOG_LEVEL=debug: the SQL statements the request ran and their total time (src/logger.ts). */
  sql?: { statements: number; ms: number };
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.reqId;
}
