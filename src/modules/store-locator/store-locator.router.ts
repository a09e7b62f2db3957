import { Router, type Request } from 'express';
import cors from 'cors';
import type { ContextDeps } from '../../context';
import { createStoreLocatorSearch } from './store-locator.factory';
import { InvalidSearchParameters, parseStoreLocatorParams } from './store-locator.params';
import { StoreLocatorReader } from './store-locator.reader';
import { StoreLocatorService } from './store-locator.service';
import type { Execute, StoreLocatorSearch } from './store-locator.types';

export interface StoreLocatorOptions {
  /** The clock hours are computed for (tests fix it). */
  now?: () => Date;
  /** Replaces the backend `SEARCH_BACKEND` chooses. */
  search?: StoreLocatorSearch;
}

/** `X-Cc-Id` wins over `cc_id`; a blank header counts as absent. */
function companyParam(req: Request): string | undefined {
  const header = req.header('x-cc-id');
  if (header !== undefined && header.trim() !== '') return header.trim();
  const param = req.query.cc_id;
  return typeof param === 'string' ? param.trim() : param === undefined ? undefined : String(param);
}

/**
 * `GET /store_locator` and `GET /store_locator/{id}` (SPEC 4.5, 4.6): public, no API key. Served directly
 * rather than through a GraphQL document: the largest payload of the service on its busiest path, built
 * with a fixed number of set-based statements.
 */
export function storeLocatorRouter(deps: ContextDeps, options: StoreLocatorOptions = {}): Router {
  const execute: Execute = (sql, bindings) => deps.orm.em.getConnection().execute(sql, bindings as any[]);
  const search = options.search ?? createStoreLocatorSearch(deps.config, execute);
  const service = new StoreLocatorService(execute, search, new StoreLocatorReader(execute, options.now));
  const router = Router();
  // Shoppers' browsers call it from partners' websites: public data, no credentials.
  router.use('/store_locator', cors({ origin: '*', methods: ['GET', 'HEAD'], allowedHeaders: ['X-Cc-Id', 'Accept', 'Content-Type'], maxAge: 86_400 }));

  router.get('/store_locator', async (req, res) => {
    const companyId = await service.company(companyParam(req));
    let params;
    try {
      params = parseStoreLocatorParams(req.query as Record<string, unknown>);
    } catch (e) {
      if (!(e instanceof InvalidSearchParameters)) throw e;
      res.status(400).json({ error: 'Invalid search parameters' });
      return;
    }
    res.json(await service.search(companyId, params));
  });

  router.get('/store_locator/:id', async (req, res) => {
    res.json({ company_retailer_location: await service.show(req.params.id) });
  });

  return router;
}
