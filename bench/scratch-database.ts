import { Client } from 'pg';

/** The PostgreSQL server a bench creates its scratch database on (default the local one, user postgres). */
export const BENCH_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `work` with the URL of a new database `name` on BENCH_SERVER, dropped after, whatever happens. */
export async function withScratchDatabase<T>(name: string, work: (url: string) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: BENCH_SERVER });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    return await work(BENCH_SERVER.replace(/\/[^/]*$/, `/${name}`));
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** Runs a bench's main and exits: 0 when it resolves, 1 with the error printed when it fails. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
