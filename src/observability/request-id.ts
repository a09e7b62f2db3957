import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestContext } from '../request-context';

/** An id a client or proxy may send: 1-128 characters, letters, digits and `-_.:/+=@`. */
const SANE_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

/** The request's id: a sane `X-Request-Id` is kept, anything else is replaced by a fresh UUID. */
export function requestIdOf(header: string | undefined): string {
  return header !== undefined && SANE_ID.test(header) ? header : randomUUID();
}

/**
 * Gives the request an id, echoes it in `X-Request-Id` and runs the rest of the request inside its
 * async context, so every log line of the request carries it.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const reqId = requestIdOf(req.header('x-request-id'));
  res.setHeader('X-Request-Id', reqId);
  requestContext.run({ reqId }, next);
}
