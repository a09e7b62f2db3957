import { Presets, SingleBar } from 'cli-progress';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ElasticsearchSearchBackend } from './backend';
import { reindex, type ReindexResult } from './reindex';

/**
 * `leadnet reindex [resource]`: rebuilds one document's index (all documents when `resource` is
 * omitted) with a progress bar on `stream`.
 */
export async function reindexWithProgress(
  backend: ElasticsearchSearchBackend,
  orm: MikroORM,
  resource: string | undefined,
  options: { batchSize?: number; stream?: NodeJS.WritableStream } = {},
): Promise<ReindexResult[]> {
  const docs = resource ? [backend.document(resource)] : backend.documents;
  if (!docs[0]) {
    throw new Error(`Unknown resource ${resource}; one of: ${backend.documents.map((d) => d.name).join(', ')}`);
  }
  const results: ReindexResult[] = [];
  for (const doc of docs) {
    const bar = new SingleBar(
      { stream: options.stream ?? process.stderr, format: `${doc!.name.padEnd(28)} [{bar}] {value}/{total} {percentage}% {eta_formatted}`, noTTYOutput: true, notTTYSchedule: 1000 },
      Presets.shades_classic,
    );
    const result = await reindex(backend, orm, doc!, {
      batchSize: options.batchSize,
      onStart: (total) => bar.start(total, 0),
      onProgress: (done) => bar.update(done),
    }).finally(() => bar.stop());
    results.push(result);
  }
  return results;
}
