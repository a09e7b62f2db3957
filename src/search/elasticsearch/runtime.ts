import path from 'node:path';
import type { EntityClass, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { initOrm } from '../../db/orm';
import { ormLogging } from '../../logger';
import { usePreparedStatements } from '../../db/sql';
import { createElasticsearchBackend } from '../factory';
import type { ElasticsearchSearchBackend } from './backend';
import type { SearchDocument } from '../types';

export interface SearchRuntime {
  orm: MikroORM;
  backend: ElasticsearchSearchBackend;
  close(): Promise<void>;
}

/**
 * The database (DATABASE_URL, else the embedded one under DATA_DIR, as the server starts it) and the
 * Elasticsearch backend, for processes other than the server: `leadnet reindex` and the standalone
 * indexer. The backend's own indexer is not started. The caller hands in the search documents and entities.
 */
export async function openSearchRuntime(
  config: Config,
  documents: readonly SearchDocument[],
  entities: readonly EntityClass<any>[],
): Promise<SearchRuntime> {
  if (!config.searchUrl) throw new Error('SEARCH_URL must be set');
  let embedded: EmbeddedDatabase | undefined;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'pg'), config.embeddedPgPort);
    url = embedded.url;
  }
  usePreparedStatements(config.database.preparedStatements);
  const orm = await initOrm(url, entities, ormLogging()); // migrations and SQL on the JSON log, as the service's
  const backend = createElasticsearchBackend(config, orm, { documents, runIndexer: false });
  return {
    orm,
    backend,
    async close() {
      await backend.stop();
      await orm.close();
      await embedded?.stop();
    },
  };
}
