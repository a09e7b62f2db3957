import 'reflect-metadata';
import type { Server } from 'node:http';
import { config, ConfigError } from './config';
import { embeddedClusterDir, startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded';
import { initOrm } from './db/orm';
import { databaseOptions } from './db/pool';
import { demoBanner, demoSeedWanted, seedDemo } from './db/demo-seed';
import { buildApp } from './app';
import { logger } from './logger';
import { configureServer } from './http/server';

async function main(): Promise<void> {
  const cfg = config();
  let embedded: EmbeddedDatabase | undefined;
  let url = cfg.databaseUrl;
  if (!url) {
    logger.info({ dir: cfg.dataDir, port: cfg.embeddedPgPort }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres(embeddedClusterDir(cfg.dataDir), cfg.embeddedPgPort);
    url = embedded.url;
  }
  const orm = await initOrm(url, databaseOptions(cfg.database));
  const demo = demoSeedWanted(cfg) ? await seedDemo(orm.em.fork()) : null;
  const { app, attach, stop } = await buildApp(cfg, orm);
  const server: Server = app.listen(cfg.port, () => {
    logger.info(`leadnet listening on http://localhost:${cfg.port} (GraphQL /graphql, REST /v1)`);
    if (demo) console.log(`\n${demoBanner(demo, `http://localhost:${cfg.port}`)}\n`);
  });
  configureServer(server, cfg);
  attach(server);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await stop();
    await orm.close();
    await embedded?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((e) => {
  if (e instanceof ConfigError) console.error(e.message);
  else logger.fatal({ err: e }, 'start failed');
  process.exit(1);
});
