import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { Caller } from './auth/caller';
import { authenticate } from './auth/api-keys';
import { Loaders } from './graphql/loaders';
import type { SearchBackend } from './search/types';
import type { Geocoder } from './geo/geocoder';

/** Everything a resolver may use, built fresh for every request (GraphQL or REST). */
export interface Context {
  em: EntityManager;
  caller: Caller | null;
  loaders: Loaders;
  config: Config;
  search: SearchBackend;
  geocoder: Geocoder;
  /**
   * Set by the REST facade for a list request: the contract's `opts[where]`, `opts[order]` and
   * `opts[aggs]` (snake_case names; a field a resource does not index matches nothing), which the list
   * reads instead of GraphQL's typed arguments (src/graphql/list-args.ts).
   */
  restListOptions?: RestListOptions;
}

export interface RestListOptions {
  where: unknown;
  order: unknown;
  aggs: unknown;
}

export interface ContextDeps {
  orm: MikroORM;
  config: Config;
  search: SearchBackend;
  geocoder: Geocoder;
}

/** `caller` when the request was already authenticated (/graphql checks the key before parsing). */
export async function buildContext(deps: ContextDeps, apiKeyHeader: string | undefined, caller?: Caller | null): Promise<Context> {
  const em = deps.orm.em.fork() as EntityManager;
  const resolved = caller === undefined ? await authenticate(em, apiKeyHeader) : caller;
  return { em, caller: resolved, loaders: new Loaders(em), config: deps.config, search: deps.search, geocoder: deps.geocoder };
}
