// The search outbox indexer on its own (SEARCH_INDEXER=false on the web processes):
//   SEARCH_BACKEND=elasticsearch|opensearch SEARCH_URL=... node --import tsx src/search-indexer.ts
import 'reflect-metadata';
import { config, ConfigError } from './config';
import { logger } from './logger';
import { openSearchRuntime } from './search/elasticsearch/runtime';
import { entities } from '../mikro-orm.config';
import { searchDocuments } from './modules';

async function main(): Promise<void> {
  const rt = await openSearchRuntime(config(), searchDocuments, entities);
  await rt.backend.start();
  rt.backend.leader.start();
  logger.info({ documents: rt.backend.documents.map((d) => d.name) }, 'search indexer running');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'search indexer stopping');
    await rt.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  if (e instanceof ConfigError) console.error(e.message);
  else logger.fatal({ err: e }, 'search indexer failed');
  process.exit(1);
});
