import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of a request carries (src/logger.ts reads it through a pino mixin). */
export interface RequestContext {
  reqId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.reqId;
}
