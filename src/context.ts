import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Caller } from './auth/caller';
import { authenticate } from './auth/api-keys';
import { Loaders } from './db/loaders';
import type { SearchBackend } from './search/types';
import type { SearchContext } from './search/list';
import type { AccessContext } from './access/visibility';
import type { Geocoder } from './geo/geocoder';
import type { CallerCache } from './auth/caller-cache';

/**
 * Everything a resolver may use, built fresh for every request (GraphQL or REST). The lower layers name
 * the part they read (`SearchContext`, `AccessContext`), so they need not import this file.
 */
export interface Context extends SearchContext, AccessContext {
  em: EntityManager;
  caller: Caller | null;
  loaders: Loaders;
  config: Config;
  search: SearchBackend;
  geocoder: Geocoder;
  /** The callers of recently used keys; writes to keys, users and assignments invalidate it once committed. */
  callers?: CallerCache;
}

export interface ContextDeps {
  orm: MikroORM;
  config: Config;
  search: SearchBackend;
  geocoder: Geocoder;
  callers?: CallerCache;
}

/** `caller` when the request was already authenticated (/graphql checks the key before parsing). */
export async function buildContext(deps: ContextDeps, apiKeyHeader: string | undefined, caller?: Caller | null): Promise<Context> {
  // The key's statement needs no unit of work (src/db/sql.ts sends it on a pooled connection).
  const resolved = caller === undefined ? await authenticate(deps.orm.em as EntityManager, apiKeyHeader, deps.callers) : caller;
  // The request's unit of work is forked on first use: a list page read by the search's own statement
  // (src/search/list.ts `RowReader`) uses none.
  let em: EntityManager | undefined;
  const ctx: Context = {
    get em() {
      return (em ??= deps.orm.em.fork() as EntityManager);
    },
    set em(value: EntityManager) {
      em = value;
    },
    caller: resolved,
    loaders: new Loaders(() => ctx.em),
    config: deps.config,
    search: deps.search,
    geocoder: deps.geocoder,
    callers: deps.callers,
  };
  return ctx;
}
