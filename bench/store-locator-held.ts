/**
 * How long reading a company's held copy (`readHeldStores`, store-locator.held.ts) takes, and for how long
 * at most it keeps the event loop from turning (`npm run bench:store-locator-held`). Not a test. It reads
 * the copy of the `bench:store-locator` seed's company (`Bench brand`, 100,000 stores) BENCH_READS times
 * (5) and prints per read: the wall time, the longest event-loop block (`monitorEventLoopDelay` at 1 ms,
 * and the largest gap between two ticks of a 1 ms timer), all scaled to 100,000 stores.
 *
 * Environment: DATABASE_URL (a database the store locator benchmark seeded), BENCH_READS (5).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'pg';
import { readHeldStores } from '../src/modules/store-locator/store-locator.held';

const READS = Number(process.env.BENCH_READS ?? 5);

async function main() {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  const execute = async (sql: string, bindings: unknown[]) => {
    let n = 0;
    return (await pool.query(sql.replace(/\?/g, () => `$${++n}`), bindings)).rows;
  };
  const [brand] = await execute(`select id from companies where name = 'Bench brand'`, []);
  if (!brand) throw new Error('no Bench brand: seed it with `npm run bench:store-locator` (or bench:peers) first');
  const [{ n }] = await execute(`select count(*)::int as n from store_locator_entries where company_id = ?::uuid`, [brand.id]);
  const per100k = (x: number) => (x * 100_000) / n;
  console.log(`company ${brand.id}: ${n.toLocaleString()} listed stores; load average ${require('node:os').loadavg().map((l: number) => l.toFixed(1)).join(' ')}`);
  for (let i = 0; i < READS; i++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    let last = performance.now();
    let gap = 0;
    // The CPU time the process spent between two ticks: the work done without the loop turning, whatever
    // the other processes of a busy machine take of the cores meanwhile.
    let cpuLast = process.cpuUsage();
    let cpu = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
      const used = process.cpuUsage(cpuLast);
      cpuLast = process.cpuUsage();
      cpu = Math.max(cpu, (used.user + used.system) / 1000);
    }, 1);
    delay.enable();
    const started = performance.now();
    const held = await readHeldStores(execute, brand.id);
    const wall = performance.now() - started;
    // The timers see a block only when they run after it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    delay.disable();
    clearInterval(tick);
    if (!held || held === 'refused') throw new Error('the copy changed while it was read');
    console.log(
      `read ${i + 1}: ${held.size.toLocaleString()} stores in ${wall.toFixed(0)} ms; longest block ${(delay.max / 1e6).toFixed(1)} ms ` +
        `(timer gap ${gap.toFixed(1)} ms, of which CPU ${cpu.toFixed(1)} ms); per 100,000 stores: ${per100k(wall).toFixed(0)} ms, block ${per100k(delay.max / 1e6).toFixed(1)} ms`,
    );
  }
  await pool.end();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
