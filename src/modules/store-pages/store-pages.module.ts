import type { AppModule } from '../module';
import type { ContextDeps } from '../../context';
import { StorePagesCache } from './store-pages.cache';
import { storePagesRouter } from './store-pages.router';

/** How long a rendered page is kept at most (a page's "today" moves with the clock). */
const PAGE_TTL_MS = 60_000;
/** Each app's page cache, made by `start` and read by `routes` (both given the same deps). */
const caches = new WeakMap<ContextDeps, StorePagesCache>();

/** Public store pages, company directories, the sitemap and robots.txt (docs/store-pages.md). */
export const storePagesModule: AppModule = {
  name: 'store-pages',
  async start({ deps }) {
    const cache = new StorePagesCache(deps.orm.config.get('clientUrl')!, PAGE_TTL_MS);
    await cache.start();
    caches.set(deps, cache);
    return { stop: () => cache.stop() };
  },
  routes: ({ deps }) => storePagesRouter(deps, { cache: caches.get(deps) }),
};
