import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run in turn as one express layer: each one's `next()` runs the next, an error (or a rejected
 * promise, as express 5 treats an async middleware's) goes to the caller's `next` at once. express runs
 * each handler of `app.use(path, a, b, c)` as a layer of its own, matching the path and rewriting the URL
 * for every one of them.
 */
export function inTurn(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err != null && err !== 'route') return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        const returned: unknown = handler(req, res, step);
        if (returned instanceof Promise) returned.then(undefined, (e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
