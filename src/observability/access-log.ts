import type { NextFunction, Request, Response } from 'express';
import { logger } from '../logger';
import { routeOf } from './route';
import { requestContext } from '../request-context';
import type { Metrics } from './metrics';

/**
 * One log line per request (method, route pattern, status, duration; the request id comes from the
 * logger's mixin) and one observation of the HTTP duration histogram. A request the client abandoned
 * before the answer is logged with `aborted: true`. At LOG_LEVEL=debug the line also sums up the
 * request's SQL: `sql: { statements, ms }` (each statement has its own `sql` line, src/logger.ts).
 */
export function accessLog(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    // The line is written in the request's context (its id), whoever emits the event.
    const store = requestContext.getStore();
    let done = false;
    const log = () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = routeOf(req, res.statusCode);
      const entry = { method: req.method, route, status: res.statusCode, durationMs: Math.round(seconds * 10_000) / 10 };
      if (!res.writableFinished) Object.assign(entry, { aborted: true });
      const sql = store?.sql;
      if (sql) Object.assign(entry, { sql: { statements: sql.statements, ms: sql.ms } });
      logger.info(entry, 'request');
      metrics.observeRequest(req.method, route, res.statusCode, seconds);
    };
    const finish = () => {
      if (done) return;
      done = true;
      if (store) requestContext.run(store, log);
      else log();
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
