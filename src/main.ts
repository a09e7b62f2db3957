import 'reflect-metadata';
import { config, ConfigError, type Config } from './config';
import { EmbeddedDatabaseError, embeddedClusterDir, relocatedClusters, startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded';
import { initAppOrm } from '../mikro-orm.config';
import { databaseOptions } from './db/pool';
import { usePreparedStatements } from './db/sql';
import { demoBanner, demoLinks, demoLogSummary, demoSeedWanted, seedDemo, writeDemoKeys, type DemoSeed } from './modules/demo/demo-seed';
import { modules } from './modules';
import { buildApp } from './app';
import { startTracing } from './observability/tracing-sdk';
import { alwaysLogger, jsonLogs, logger, ormLogging } from './logger';
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
  // Stopped last: the spans of the shutdown's own work are exported too.
  const stopTracing = startTracing(cfg);
  if (stopTracing) {
    lifecycle.add('traces', stopTracing);
    logger.info({ protocol: cfg.tracing?.protocol }, 'traces: exported over OTLP (OTEL_* variables)');
  }

  let url = cfg.databaseUrl;
  if (url) {
    logger.info({ database: withoutPassword(url) }, `data: the database of DATABASE_URL (${withoutPassword(url)})`);
  } else {
    const dir = embeddedClusterDir(cfg.dataDir);
    logger.info({ dir, port: cfg.embeddedPgPort }, 'starting embedded PostgreSQL');
    const embedded = await startEmbeddedPostgres(dir, cfg.embeddedPgPort, { log: (line) => logger.info(line) });
    lifecycle.add('embedded PostgreSQL', () => embedded.stop());
    url = embedded.url;
    whereTheDataIs(cfg, embedded);
  }
  usePreparedStatements(cfg.database.preparedStatements);
  const orm = await initAppOrm(url, { ...databaseOptions(cfg.database), ...ormLogging() });
  lifecycle.add('database connections', () => orm.close());
  const demo = demoSeedWanted(cfg) ? await seedDemo(orm.em.fork(), modules) : null;
  const { app, attach, stop } = await buildApp(cfg, orm);
  lifecycle.add('GraphQL, subscriptions, webhooks and search', stop);

  const server = await listen(app, cfg.port, cfg.host, (s) => configureServer(s, cfg));
  lifecycle.add('HTTP server', () => closeServer(server, cfg.shutdownTimeoutMs));
  // Stopped first: open WebSockets would otherwise hold the HTTP drain until its timeout.
  lifecycle.add('subscriptions', attach(server));

  const bound = boundAddress(server);
  logger.info(
    { address: bound.address, pid: process.pid, url: bound.url, docs: `${bound.url}/v1/docs` },
    `leadnet listening on ${bound.address}, ${bound.url} (start page /, GraphQL /graphql, REST /v1, API reference ${bound.url}/v1/docs)`,
  );
  if (demo) showDemo(cfg, demo, bound.url);
}

/**
 * The demo seed's keys, whatever LOG_LEVEL says: always in a file of the data directory readable by its
 * owner only; on a terminal also in the banner. Off a terminal stdout feeds log collectors, so the log
 * line names the file and carries no key.
 */
function showDemo(cfg: Config, demo: DemoSeed, baseUrl: string): void {
  let keysFile: string | null = null;
  try {
    keysFile = writeDemoKeys(cfg.dataDir, demo, baseUrl);
  } catch (err) {
    logger.error({ err }, `could not write the demo API keys to a file in ${cfg.dataDir}; new keys: npx leadnet keys generate --user <email>`);
  }
  if (process.stdout.isTTY === true && !jsonLogs) {
    console.log(`\n${demoBanner(demo, baseUrl)}${keysFile ? `\nThe keys and these requests are also in ${keysFile} (readable by you only).` : ''}\n`);
    return;
  }
  const where = keysFile ? `one API key per role in ${keysFile} (readable by its owner only)` : 'its API keys could not be written (see above)';
  alwaysLogger().info(
    { demo: demoLogSummary(demo, baseUrl, keysFile) },
    `demo network seeded; ${where}; store finder of ${demo.company.name}: ${demoLinks(demo, baseUrl).store_finder}`,
  );
}

/** Where the embedded database's files are and how to start afresh: on every start (docs/operations.md). */
function whereTheDataIs(cfg: Config, embedded: EmbeddedDatabase): void {
  logger.info(
    { dataDir: cfg.dataDir, cluster: embedded.dir, port: embedded.port, postgresPid: embedded.pid },
    `data: embedded PostgreSQL in ${embedded.dir} (DATA_DIR ${cfg.dataDir}), port ${embedded.port}; to start afresh, stop the service and run: npx leadnet data reset`,
  );
  if (process.getuid?.() !== 0) return;
  const orphaned = relocatedClusters().filter((c) => c.orphaned && !c.running);
  if (orphaned.length) {
    logger.info(
      { clusters: orphaned.map((c) => c.dir) },
      `${orphaned.length} relocated cluster(s) of data directories that no longer exist remain under /var/lib/leadnet/clusters; remove them with: npx leadnet data prune`,
    );
  }
}

/** A database URL as it may be logged. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}

const lifecycle = new Lifecycle();
main(lifecycle).catch(async (e) => {
  // Configuration, database and listen failures are one line that says what to do.
  if (e instanceof ConfigError || e instanceof EmbeddedDatabaseError || e instanceof ListenError) console.error(e.message);
  else logger.fatal({ err: e }, `start failed: ${e instanceof Error ? e.message : String(e)}`);
  await lifecycle.stop('start failed');
  process.exit(1);
});
