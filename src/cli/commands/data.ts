import type { Command } from 'commander';
import { clusterStatus, pruneClusters, relocatedClusters, removeCluster, type ClusterStatus } from '../../db/embedded';
import { CliError, type CliRuntime, type Session } from '../runtime';

/**
 * Where the embedded database lives, and the one way to start afresh (docs/operations.md): `data path`,
 * `data reset` (refused while the service runs) and, for root's relocated clusters, `data prune`.
 */
export function register(program: Command, runtime: CliRuntime): void {
  const data = program.command('data').description('Where the embedded database lives (DATA_DIR), and resetting it');

  runtime.action(data.command('path').description('Print the data directory, where its PostgreSQL cluster lives and whether it runs'), async (session) => {
    external(session, 'path');
    const status = clusterStatus(session.config.dataDir);
    return { json: statusJson(status), text: statusText(status) };
  });

  runtime.action(
    data.command('reset').description('Delete the embedded database (the next start creates and seeds a new one); refused while the service runs'),
    async (session) => {
      external(session, 'reset');
      const removed = removeCluster(session.config.dataDir);
      return {
        json: { removed },
        text: removed.length
          ? `Removed the embedded database:\n${removed.map((p) => `  ${p}`).join('\n')}\nThe next start creates a new one (and seeds the demo network).`
          : `No embedded database in ${session.config.dataDir}: nothing to remove.`,
      };
    },
  );

  runtime.action(
    data.command('prune').description("Delete root's relocated clusters whose data directory no longer exists (never a running one)"),
    async () => {
      const pruned = pruneClusters();
      const kept = relocatedClusters();
      const json = {
        removed: pruned.map((c) => ({ dir: c.dir, data_dir: c.dataDir })),
        kept: kept.map((c) => ({ dir: c.dir, data_dir: c.dataDir ?? null, running: c.running })),
      };
      const lines = pruned.length ? ['Removed:', ...pruned.map((c) => `  ${c.dir} (of ${c.dataDir}, which no longer exists)`)] : ['No orphaned cluster to remove.'];
      if (kept.length) lines.push('Kept:', ...kept.map((c) => `  ${c.dir} (${c.dataDir ? `of ${c.dataDir}` : 'data directory not recorded'}${c.running ? ', running' : ''})`));
      return { json, text: lines.join('\n') };
    },
  );
}

/** With DATABASE_URL nothing is embedded: the data is that server's, managed there. */
function external(session: Session, command: string): void {
  if (!session.config.databaseUrl) return;
  throw new CliError(`DATABASE_URL is set: the data lives in that database, not in an embedded one; \`leadnet data ${command}\` applies to the embedded database only.`, 'EXTERNAL_DATABASE');
}

function statusJson(s: ClusterStatus) {
  return {
    data_dir: s.dataDir,
    cluster_dir: s.dir,
    relocated: s.relocated,
    exists: s.exists,
    running: s.running ? { postgres_pid: s.running.pid, port: s.running.port, ready: s.running.ready, leadnet_pid: s.running.owner ?? null } : null,
    starting_pid: s.starting ?? null,
  };
}

function statusText(s: ClusterStatus): string {
  const state = s.running
    ? `running: PostgreSQL pid ${s.running.pid} on port ${s.running.port}${s.running.owner ? `, started by leadnet process ${s.running.owner}` : ' (its service is gone)'}`
    : s.starting
      ? `starting (leadnet process ${s.starting})`
      : s.exists
        ? 'stopped'
        : 'not created yet (the next start creates it)';
  return [
    `data directory  ${s.dataDir}`,
    `cluster         ${s.dir}${s.relocated ? ' (relocated for the postgres user; named by pg.location)' : ''}`,
    `state           ${state}`,
    '',
    'Start afresh: stop the service, then `npx leadnet data reset`.',
  ].join('\n');
}
