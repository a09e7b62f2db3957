/**
 * Import benchmark (`npm run bench:import`). Not a test: writes a CSV of BENCH_ROWS (10,000) products and
 * runs the real `leadnet import products` on it three times (new catalog, the same file again, every row
 * changed), timing each whole command (start-up included). DATABASE_URL must point at a PostgreSQL the
 * bench may write a company into.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { stringify } from 'csv-stringify/sync';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

function csv(suffix: string): string {
  const rows = Array.from({ length: ROWS }, (_, i) => [`BENCH-${i}`, `Product ${i}${suffix}`, `Category ${i % 40}`, `https://example.com/p/${i}`, `EXT-${i}`]);
  const file = path.join(os.tmpdir(), `leadnet-bench-products${suffix || '-base'}.csv`);
  fs.writeFileSync(file, stringify([['sku', 'name', 'category', 'url', 'external_id'], ...rows]));
  return file;
}

async function main() {
  const bin = path.join(__dirname, '..', 'bin', 'leadnet.js');
  // The schema first (the bin migrates too, but then the first timing would include it).
  execFileSync(process.execPath, [bin, 'migrate', '--json'], { env: { ...process.env, LOG_LEVEL: 'silent' } });
  const db = new Client({ connectionString: url });
  await db.connect();
  const { rows: [company] } = await db.query(`insert into companies (name) values ('Import bench ' || now()) returning id`);
  await db.end();
  const base = csv('');
  const changed = csv(' v2');
  for (const [label, file] of [['new catalog', base], ['same file again', base], ['every row changed', changed]] as const) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [bin, 'import', 'products', file, '--company', company.id, '--json'], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const seconds = (performance.now() - t0) / 1000;
    const r = JSON.parse(out.toString());
    console.log(`${label}: ${ROWS.toLocaleString()} rows in ${seconds.toFixed(1)} s (${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.invalid} invalid)`);
  }
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, 'export', 'leads', '--company', company.id], { env: { ...process.env, LOG_LEVEL: 'silent' } });
  console.log(`bin start-up + an empty export: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
