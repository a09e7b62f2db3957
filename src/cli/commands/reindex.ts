import type { Command } from 'commander';
import { config } from '../../config';
import { openSearchRuntime, type SearchRuntime } from '../../search/elasticsearch/runtime';
import { reindexWithProgress } from '../../search/elasticsearch/reindex-all';
import { searchDocuments } from '../../search/documents';

/** What the command needs; tests pass their own. */
export interface ReindexRuntime {
  openSearch(): Promise<SearchRuntime>;
  stream: NodeJS.WritableStream;
}

/**
 * `leadnet reindex [resource]`: rebuilds Elasticsearch indexes from PostgreSQL with zero downtime
 * (a new index, a bulk load, an atomic alias swap). Needs ELASTICSEARCH_URL.
 */
export function register(program: Command, runtime: Partial<ReindexRuntime> = {}): void {
  program
    .command('reindex')
    .argument('[resource]', `one of ${searchDocuments.map((d) => d.name).join(', ')}; every one when omitted`)
    .description('Rebuild Elasticsearch indexes from PostgreSQL with zero downtime (new index, bulk load, alias swap)')
    .option('--batch-size <n>', 'records per bulk request', '1000')
    .action(async (resource: string | undefined, options: { batchSize: string }) => {
      const batchSize = Number(options.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('--batch-size must be a positive integer');
      const open = runtime.openSearch ?? (() => openSearchRuntime(config()));
      const rt = await open();
      try {
        await reindexWithProgress(rt.backend, rt.orm, resource, { batchSize, stream: runtime.stream ?? process.stderr });
      } finally {
        await rt.close();
      }
    });
}
