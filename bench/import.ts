/**
 * Import benchmark (`npm run bench:import`). Not a test: writes CSVs of BENCH_ROWS (10,000) products and
 * stores and runs the real `leadnet import products` and `leadnet import locations` on each three times
 * (new, the same file again, every row changed), timing each whole command (start-up included). Half the
 * stores have no coordinates and are geocoded from their ZIP code. DATABASE_URL must point at a
 * PostgreSQL the bench may write a company into. BENCH_KINDS (`products,locations`) and BENCH_RUNS (1 to 3)
 * pick what is timed; BENCH_TAG names the CSV files (two runs at once must not share them).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from 'pg';
import { stringify } from 'csv-stringify/sync';

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
/** A tag for the CSV files, so that two runs at once (e.g. two checkouts side by side) do not share them. */
const TAG = process.env.BENCH_TAG ?? String(process.pid);
/** Which imports to time: `products`, `locations` or both (the default), comma-separated. */
const KINDS = (process.env.BENCH_KINDS ?? 'products,locations').split(',').map((k) => k.trim());
/** How many of each kind's three runs (new, the same file again, every row changed) to time: 1 to 3 (3). */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

function csv(suffix: string): string {
  const rows = Array.from({ length: ROWS }, (_, i) => [`BENCH-${i}`, `Product ${i}${suffix}`, `Category ${i % 40}`, `https://example.com/p/${i}`, `EXT-${i}`]);
  const file = path.join(os.tmpdir(), `leadnet-bench-${TAG}-products${suffix || '-base'}.csv`);
  fs.writeFileSync(file, stringify([['sku', 'name', 'category', 'url', 'external_id'], ...rows]));
  return file;
}

const ZIPS = ['97205', '97209', '98102', '94103', '10001', '60601', '30303', '80202', '02108', '73301'];

function storesCsv(suffix: string): string {
  const header = ['external_id', 'retailer', 'name', 'street_line_one', 'city', 'postal_code', 'country', 'latitude', 'longitude', 'phone', 'email', 'website', 'hours', 'delivery_radius', 'delivery_areas'];
  const rows = Array.from({ length: ROWS }, (_, i) => [
    `STORE-${i}`,
    `Retailer ${i % 50}`,
    `Store ${i}${suffix}`,
    `${i} Main St`,
    '',
    ZIPS[i % ZIPS.length],
    'US',
    i % 2 ? '' : String(30 + (i % 17) + (i % 1000) / 1000),
    i % 2 ? '' : String(-120 + (i % 40) + (i % 1000) / 1000),
    `+1 503 555 ${String(i % 10000).padStart(4, '0')}`,
    `store${i}@example.com`,
    `https://example.com/stores/${i}`,
    'mon-fri 09:00-18:00; sat 10:00-16:00; sun closed',
    String(5 + (i % 20)),
    `${ZIPS[i % ZIPS.length]} US`,
  ]);
  const file = path.join(os.tmpdir(), `leadnet-bench-${TAG}-stores${suffix || '-base'}.csv`);
  fs.writeFileSync(file, stringify([header, ...rows]));
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
  const runs = [
    ['products', 'new catalog', () => csv('')],
    ['products', 'same file again', () => csv('')],
    ['products', 'every row changed', () => csv(' v2')],
    ['locations', 'new network', () => storesCsv('')],
    ['locations', 'same file again', () => storesCsv('')],
    ['locations', 'every row changed', () => storesCsv(' v2')],
  ] as const;
  for (const [kind, label, makeFile] of runs.filter(([k], i) => KINDS.includes(k) && i % 3 < RUNS)) {
    const file = makeFile();
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [bin, 'import', kind, file, '--company', company.id, '--json'], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const seconds = (performance.now() - t0) / 1000;
    const r = JSON.parse(out.toString());
    console.log(`${kind}, ${label}: ${ROWS.toLocaleString()} rows in ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds).toLocaleString()} rows/s (${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.invalid} invalid)`);
  }
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, 'export', 'leads', '--company', company.id], { env: { ...process.env, LOG_LEVEL: 'silent' } });
  console.log(`bin start-up + an empty export: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
