import type { AppModule } from '../module';
import { storeLocatorRouter } from './store-locator.router';
import { storeLocatorSearch } from './store-locator.search';

/** The public store locator: /v1 routes of its own (no key) over its search document. */
export const storeLocatorModule: AppModule = {
  name: 'store-locator',
  restRoutes: (deps) => storeLocatorRouter(deps),
  search: [storeLocatorSearch],
};
