import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import cors from 'cors';
import type { ContextDeps } from '../../context';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors';
import { parseQueryString } from '../../rest/query';
import { createStoreLocatorSearch } from './store-locator.factory';
import { InvalidSearchParameters, parseStoreLocatorParams } from './store-locator.params';
import { StoreLocatorReader } from './store-locator.reader';
import { StoreLocatorService } from './store-locator.service';
import type { SearchObserver, StoreLocatorSearch } from './store-locator.types';
import { plannedExecute, storeLocatorExecute } from './store-locator.repository';

export interface StoreLocatorOptions {
  /** The clock hours are computed for (tests fix it). */
  now?: () => Date;
  /** Replaces the backend `SEARCH_BACKEND` chooses. */
  search?: StoreLocatorSearch;
  /** Told of each answered search (locator demand, docs/locator-demand.md). */
  observe?: SearchObserver;
}

/**
 * The query string, read as every /v1 route reads it; a prototype name as a key is the store locator's
 * own 400.
 */
function searchQuery(req: Request): Record<string, unknown> {
  try {
    return parseQueryString(req.originalUrl);
  } catch (e) {
    if (e instanceof AppError && e.code === 'BAD_REQUEST') throw new InvalidSearchParameters(e.message);
    throw e;
  }
}

/** `X-Cc-Id` wins over `cc_id`; blank counts as absent. A `cc_id` that is not one value is a 400. */
function companyParam(req: Request, query: Record<string, unknown>): string | undefined {
  const param = query.cc_id;
  if (param !== undefined && typeof param !== 'string') throw new InvalidSearchParameters('cc_id');
  const id = req.header('x-cc-id')?.trim() || param?.trim();
  return id || undefined;
}

/**
 * A 200 that browsers and proxies may keep `maxAge` seconds (short: `open_now` and hours move with the
 * clock), with an ETag of the body: a matching `If-None-Match` is a 304 without a body. The body depends
 * on `X-Cc-Id`, so caches key on it.
 */
function sendCacheable(req: Request, res: Response, body: unknown, maxAge: number): void {
  const text = JSON.stringify(body);
  res.set('Cache-Control', `public, max-age=${maxAge}`);
  res.vary('X-Cc-Id');
  res.set('ETag', `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`);
  res.status(200);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(text);
}

/**
 * `GET /store_locator` and `GET /store_locator/{id}` (SPEC 4.5, 4.6): public, no API key. Served directly
 * rather than through a GraphQL document: the largest payload of the service on its busiest path, built
 * with a fixed number of set-based statements.
 */
export function storeLocatorRouter(deps: ContextDeps, options: StoreLocatorOptions = {}): Router {
  const execute = storeLocatorExecute(deps.orm.em as EntityManager);
  // The ranking statement is planned for each search (`plannedExecute`).
  const planned = plannedExecute(deps.orm.em as EntityManager);
  const search = options.search ?? createStoreLocatorSearch(deps.config, planned);
  const service = new StoreLocatorService(execute, search, new StoreLocatorReader(execute, options.now), { geocoder: deps.geocoder, observe: options.observe });
  const maxAge = deps.config.storeLocator.maxAge;
  const router = Router();
  // Shoppers' browsers call it from partners' websites: public data, no credentials.
  router.use(
    '/store_locator',
    cors({ origin: '*', methods: ['GET', 'HEAD'], allowedHeaders: ['X-Cc-Id', 'Accept', 'Content-Type', 'If-None-Match'], exposedHeaders: ['ETag'], maxAge: 86_400 }),
  );

  router.get('/store_locator', async (req, res) => {
    try {
      const sent = searchQuery(req);
      const companyId = await service.company(companyParam(req, sent));
      const params = parseStoreLocatorParams(sent);
      sendCacheable(req, res, await service.search(companyId, params), maxAge);
    } catch (e) {
      if (!(e instanceof InvalidSearchParameters)) throw e;
      // The additions' 400s also name the parameter; the contract's keep their exact body.
      res
        .status(400)
        .json(e.parameter ? { error: 'Invalid search parameters', parameter: e.parameter, message: e.reason } : { error: 'Invalid search parameters' });
    }
  });

  router.get('/store_locator/:id', async (req, res) => {
    sendCacheable(req, res, { company_retailer_location: await service.show(req.params.id) }, maxAge);
  });

  return router;
}
