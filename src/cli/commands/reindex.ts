import type { Command } from 'commander';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { searchDocuments } from '../../modules';
import { createElasticsearchBackend } from '../../search/factory';
import type { ElasticsearchSearchBackend } from '../../search/elasticsearch/backend';
import { reindexWithProgress } from '../../search/elasticsearch/reindex-all';
import { MAX_BATCH_SIZE, REINDEX_BATCH_SIZE } from '../../search/elasticsearch/reindex';

/** The part of the CLI runtime (`src/cli/runtime.ts`) this command uses. */
export interface ReindexRuntime {
  action<Opts>(
    command: Command,
    work: (session: { config: Config; orm(): Promise<MikroORM> }, opts: Opts, args: string[]) => Promise<{ json: unknown; text: string }>,
  ): Command;
}

export interface ReindexDeps {
  backend(config: Config, orm: MikroORM): ElasticsearchSearchBackend;
  /** Where the progress bar goes. */
  stream: NodeJS.WritableStream;
}

const defaults: ReindexDeps = {
  backend: (config, orm) => createElasticsearchBackend(config, orm, { documents: searchDocuments, runIndexer: false }),
  stream: process.stderr,
};

/**
 * `leadnet reindex [resource]`: rebuilds the search engine's indexes from PostgreSQL with zero downtime
 * (a new index, a bulk load, an atomic alias swap), with a progress bar on stderr. Needs
 * SEARCH_URL (or ELASTICSEARCH_URL).
 */
export function register(program: Command, runtime: ReindexRuntime, deps: Partial<ReindexDeps> = {}): void {
  const { backend, stream } = { ...defaults, ...deps };
  const command = program
    .command('reindex')
    .argument('[resource]', `one of ${searchDocuments.map((d) => d.name).join(', ')}; every one when omitted`)
    .description('Rebuild Elasticsearch indexes from PostgreSQL with zero downtime (new index, bulk load, alias swap)')
    .option('--batch-size <n>', 'records per bulk request', String(REINDEX_BATCH_SIZE));
  runtime.action<{ batchSize: string }>(command, async (session, opts, args) => {
    const batchSize = Number(opts.batchSize);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) throw new Error(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}`);
    if (!session.config.searchUrl) throw new Error('SEARCH_URL must be set to reindex');
    const es = backend(session.config, await session.orm());
    const results = await reindexWithProgress(es, await session.orm(), args[0], { batchSize, stream });
    return {
      json: { indexes: results },
      text: results.map((r) => `${r.index}: ${r.documents} documents${r.previous.length ? ` (replaced ${r.previous.join(', ')})` : ''}`).join('\n'),
    };
  });
}
