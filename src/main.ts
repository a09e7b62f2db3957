import 'reflect-metadata';
import { config, ConfigError } from './config';
import { EmbeddedDatabaseError, embeddedClusterDir, startEmbeddedPostgres } from './db/embedded';
import { initOrm } from './db/orm';
import { databaseOptions } from './db/pool';
import { usePreparedStatements } from './db/sql';
import { demoBanner, demoSeedWanted, seedDemo } from './db/demo-seed';
import { buildApp } from './app';
import { logger } from './logger';
import { configureServer } from './http/server';
import { Lifecycle } from './lifecycle';
import { boundAddress, closeServer, listen, ListenError } from './server';

/**
 * Starts the service: the database (DATABASE_URL, else the embedded one), migrations, the app, then the
 * HTTP listener. Every part registers how it stops on `lifecycle`, which SIGTERM/SIGINT or a failed
 * start-up run in reverse order: HTTP drain, GraphQL and the search indexer, the ORM, the embedded database.
 */
async function main(lifecycle: Lifecycle): Promise<void> {
  const cfg = config();
  lifecycle.exitOnSignals(cfg.shutdownTimeoutMs + 20_000);

  let url = cfg.databaseUrl;
  if (!url) {
    const dir = embeddedClusterDir(cfg.dataDir);
    logger.info({ dir, port: cfg.embeddedPgPort }, 'starting embedded PostgreSQL');
    const embedded = await startEmbeddedPostgres(dir, cfg.embeddedPgPort, { log: (line) => logger.info(line) });
    lifecycle.add('embedded PostgreSQL', () => embedded.stop());
    url = embedded.url;
  }
  usePreparedStatements(cfg.database.preparedStatements);
  const orm = await initOrm(url, databaseOptions(cfg.database));
  lifecycle.add('database connections', () => orm.close());
  const demo = demoSeedWanted(cfg) ? await seedDemo(orm.em.fork()) : null;
  const { app, attach, stop } = await buildApp(cfg, orm);
  lifecycle.add('GraphQL, subscriptions, webhooks and search', stop);

  const server = await listen(app, cfg.port, cfg.host, (s) => configureServer(s, cfg));
  lifecycle.add('HTTP server', () => closeServer(server, cfg.shutdownTimeoutMs));
  // Stopped first: open WebSockets would otherwise hold the HTTP drain until its timeout.
  lifecycle.add('subscriptions', attach(server));

  const bound = boundAddress(server);
  logger.info({ address: bound.address, pid: process.pid }, `leadnet listening on ${bound.address}, ${bound.url} (GraphQL /graphql, REST /v1)`);
  if (demo) console.log(`\n${demoBanner(demo, bound.url)}\n`);
}

const lifecycle = new Lifecycle();
main(lifecycle).catch(async (e) => {
  // Configuration, database and listen failures are one line that says what to do.
  if (e instanceof ConfigError || e instanceof EmbeddedDatabaseError || e instanceof ListenError) console.error(e.message);
  else logger.fatal({ err: e }, `start failed: ${e instanceof Error ? e.message : String(e)}`);
  await lifecycle.stop('start failed');
  process.exit(1);
});
