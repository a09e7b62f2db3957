import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { PostgresSearchBackend } from './postgres';
import type { SearchBackend } from './types';

/** The search backend chosen by `SEARCH_BACKEND`. */
export function createSearchBackend(config: Config, orm: MikroORM): SearchBackend {
  switch (config.searchBackend) {
    case 'postgres':
      return new PostgresSearchBackend(() => orm.em as EntityManager);
    case 'elasticsearch':
      throw new Error('SEARCH_BACKEND=elasticsearch is not available yet');
  }
}
