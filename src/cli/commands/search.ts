import type { Command } from 'commander';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { searchDocuments } from '../../modules';
import { createElasticsearchBackend } from '../../search/factory';
import type { ElasticsearchSearchBackend } from '../../search/elasticsearch/backend';
import { verify, type DriftReport } from '../../search/elasticsearch/verify';
import { MAX_BATCH_SIZE } from '../../search/elasticsearch/reindex';
import { CliError, type CliRuntime } from '../runtime';

export interface SearchDeps {
  backend(config: Config, orm: MikroORM): ElasticsearchSearchBackend;
}

const defaults: SearchDeps = {
  backend: (config, orm) => createElasticsearchBackend(config, orm, { documents: searchDocuments, runIndexer: false }),
};

/**
 * `leadnet search verify [resource] [--repair]`: compares the search engine's indexes with PostgreSQL,
 * document by document (id and content hash), and reports the drift: missing, extra and stale
 * documents. Exit status 1 when any is left (after `--repair`, when the repair did not fix it).
 */
export function register(program: Command, runtime: CliRuntime, deps: Partial<SearchDeps> = {}): void {
  const { backend } = { ...defaults, ...deps };
  const search = program.command('search').description('The search engine copy of the data (SEARCH_BACKEND=elasticsearch or opensearch)');
  const command = search
    .command('verify')
    .argument('[resource]', `one of ${searchDocuments.map((d) => d.name).join(', ')}; every one when omitted`)
    .description('Compare the search indexes with PostgreSQL (ids and content) and report missing, extra and stale documents')
    .option('--repair', 'rewrite the drifted documents from PostgreSQL, then check again')
    .option('--batch-size <n>', 'records per request', '1000');
  runtime.action<{ repair?: boolean; batchSize: string }>(command, async (session, opts, args) => {
    const batchSize = Number(opts.batchSize);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) throw new CliError(`--batch-size must be an integer from 1 to ${MAX_BATCH_SIZE}`, 'USAGE');
    if (session.config.searchBackend === 'postgres' || !session.config.searchUrl) {
      throw new CliError('SEARCH_BACKEND (elasticsearch or opensearch) and SEARCH_URL must be set to verify the search indexes', 'NO_SEARCH_ENGINE');
    }
    const es = backend(session.config, await session.orm());
    const docs = args[0] ? [es.document(args[0])] : es.documents;
    if (!docs[0]) throw new CliError(`Unknown resource ${args[0]}; one of: ${es.documents.map((d) => d.name).join(', ')}`, 'USAGE');
    const reports: DriftReport[] = [];
    for (const doc of docs) reports.push(await verify(es, doc!, { batchSize, repair: opts.repair === true }));
    const drifted = reports.filter((r) => !r.ok);
    return {
      json: { ok: drifted.length === 0, documents: reports },
      text: reports.map(reportText).join('\n'),
      failure: drifted.length
        ? new CliError(`drift in ${drifted.map((r) => r.document).join(', ')}${opts.repair ? ' remains after --repair' : ': run again with --repair, or `leadnet reindex`'}`, 'SEARCH_DRIFT')
        : undefined,
    };
  });
}

function reportText(r: DriftReport): string {
  const head = `${r.document.padEnd(28)} ${r.ok ? 'ok   ' : 'DRIFT'}  database ${r.database}, index ${r.indexed} (${r.index}); missing ${r.missing}, extra ${r.extra}, stale ${r.stale}, pending ${r.pending}${r.repaired !== undefined ? `; repaired ${r.repaired}` : ''}`;
  const lines = [head];
  for (const kind of ['missing', 'extra', 'stale'] as const) {
    if (r.ids[kind].length) lines.push(`  ${kind}: ${r.ids[kind].join(' ')}`);
  }
  return lines.join('\n');
}
