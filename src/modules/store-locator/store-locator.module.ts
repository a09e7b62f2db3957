import type { AppModule } from '../module';
import { storeLocatorRouter } from './store-locator.router';
import { storeLocatorSearch } from './store-locator.search';
import { demandFlusher, demandObserver } from '../locator-demand/locator-demand.recorder';

/**
 * The public store locator: /v1 routes of its own (no key) over its search document. Its answered
 * searches are counted by locator demand (docs/locator-demand.md) unless `LOCATOR_DEMAND=false`.
 */
export const storeLocatorModule: AppModule = {
  name: 'store-locator',
  restRoutes: (deps) =>
    storeLocatorRouter(deps, deps.config.locatorDemand.enabled ? { observe: demandObserver(demandFlusher(deps).buffer) } : {}),
  search: [storeLocatorSearch],
};
