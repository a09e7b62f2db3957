// What tracing costs on the lead list (docs/tracing.md): three leadnet processes on one database, measured
// interleaved, the order rotating from round to round:
//   baseline   a leadnet checkout without tracing code (BASELINE_DIR, e.g. a git worktree of the commit
//              before tracing came in); without it the table has no baseline and compares on to off
//   off        this checkout, no OTEL_* variable (tracing off: the default)
//   on 10%     this checkout exporting over OTLP/HTTP to a local receiver, `traceidratio` sampling 0.1
// Each answers GET /v1/leads?per_page=25 as company A's admin, autocannon at CONNECTIONS for DURATION_S.
// Per run: requests/s, and the CPU time (user + system, /proc/<pid>/stat) the leadnet process spent per request,
// which the shared machine moves far less than throughput.
//
//   SEED_ONLY=1 PERF_LEADS=1000 BENCH_STORES=5000 npm run bench:peers   (once: the database and its keys)
//   BASELINE_DIR=/work/base PERF_LEADS=1000 node bench/peers/tracing.mjs
//
// Environment (defaults): PGADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres), PERF_LEADS (100000),
// PERF_DB (perf_leadnet_$PERF_LEADS), ROUNDS (5), DURATION_S (10), WARMUP_S (3), CONNECTIONS (10),
// PORT_BASE (3200), SAMPLER_ARG (0.1), LIST_PATH (/v1/leads?per_page=25). Every process started here is
// stopped at exit.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = path.dirname(fileURLToPath(import.meta.url));
const LEADNET_DIR = path.resolve(here, '..', '..');
const env = process.env;
const PERF_LEADS = env.PERF_LEADS ?? '100000';
const PERF_DB = env.PERF_DB ?? `perf_leadnet_${PERF_LEADS}`;
const ADMIN = env.PGADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_URL = ADMIN.replace(/\/[^/]*$/, `/${PERF_DB}`);
const ROUNDS = Number(env.ROUNDS ?? 5);
const DURATION_S = Number(env.DURATION_S ?? 10);
const WARMUP_S = Number(env.WARMUP_S ?? 3);
const CONNECTIONS = Number(env.CONNECTIONS ?? 10);
const PORT_BASE = Number(env.PORT_BASE ?? 3200);
const LIST_PATH = env.LIST_PATH ?? '/v1/leads?per_page=25';

const keys = JSON.parse(execFileSync(process.execPath, [path.join(here, 'roles.mjs')], { env: { ...env, DATABASE_URL } }).toString());
const key = keys.keys.company_admin;

// The OTLP receiver: answers every export, counts them.
let exportsReceived = 0;
let exportBytes = 0;
const sink = http.createServer((req, res) => {
  req.on('data', (c) => (exportBytes += c.length));
  req.on('end', () => {
    exportsReceived++;
    res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${sink.address().port}`;

const base = {
  DATABASE_URL,
  SEED_DEMO: 'false',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_API: '0',
  RATE_LIMIT_API_PER_IP: '0',
  WEBHOOK_WORKER: 'false',
  NOTIFICATION_WORKER: 'false',
};
const systems = [
  ...(env.BASELINE_DIR ? [{ name: 'baseline', dir: path.resolve(env.BASELINE_DIR), env: {} }] : []),
  { name: 'off', dir: LEADNET_DIR, env: {} },
  {
    name: `on ${Math.round(Number(env.SAMPLER_ARG ?? 0.1) * 100)}%`,
    dir: LEADNET_DIR,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: env.SAMPLER_ARG ?? '0.1' },
  },
];

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
for (const [i, sys] of systems.entries()) {
  sys.port = PORT_BASE + i;
  // Environment variables of this shell that would change a system (OTEL_*) are not passed on.
  const inherited = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('OTEL_')));
  const child = spawn(process.execPath, ['--max-old-space-size=192', '--import', 'tsx', 'src/main.ts'], {
    cwd: sys.dir,
    env: { ...inherited, ...base, ...sys.env, PORT: String(sys.port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  sys.child = child;
}
for (const sys of systems) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${sys.port}${LIST_PATH}`, { headers: { 'x-api-key': key } }).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline || sys.child.exitCode !== null) throw new Error(`${sys.name} did not answer ${LIST_PATH} with 200`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** CPU time (user + system) the process has used, in ms: /proc/<pid>/stat's utime and stime, in clock ticks of 10 ms. */
function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function load(sys, seconds) {
  return new Promise((resolve, reject) =>
    autocannon({ url: `http://127.0.0.1:${sys.port}${LIST_PATH}`, connections: CONNECTIONS, duration: seconds, headers: { 'x-api-key': key } }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );
}

for (const sys of systems) await load(sys, WARMUP_S);
const rps = new Map(systems.map((s) => [s.name, []]));
const cpu = new Map(systems.map((s) => [s.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = systems.map((_, i) => systems[(i + round) % systems.length]);
  for (const sys of order) {
    const before = cpuMs(sys.child.pid);
    const r = await load(sys, DURATION_S);
    if (r.non2xx || r.errors) throw new Error(`${sys.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
    rps.get(sys.name).push(r.requests.average);
    cpu.get(sys.name).push((cpuMs(sys.child.pid) - before) / r.requests.total);
  }
  console.error(`round ${round + 1}: ${systems.map((s) => `${s.name} ${rps.get(s.name).at(-1).toFixed(1)}/s ${cpu.get(s.name).at(-1).toFixed(2)} ms CPU`).join(', ')}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const reference = systems[0].name;
console.log(`\nGET ${LIST_PATH}, ${PERF_DB}, autocannon ${CONNECTIONS} connections, ${DURATION_S} s a run, ${ROUNDS} interleaved rounds (medians)\n`);
console.log(`| leadnet | requests/s | vs ${reference} | node CPU ms a request | vs ${reference} |`);
console.log('|---|---:|---:|---:|---:|');
for (const sys of systems) {
  const m = median(rps.get(sys.name));
  const c = median(cpu.get(sys.name));
  console.log(`| ${sys.name} | ${m.toFixed(1)} | ${(m / median(rps.get(reference))).toFixed(3)} | ${c.toFixed(2)} | ${(c / median(cpu.get(reference))).toFixed(3)} |`);
}
console.log(`\nThe OTLP receiver got ${exportsReceived} exports (${(exportBytes / 1024).toFixed(0)} KB).`);
for (const c of children) c.kill('SIGTERM');
sink.close();
process.exit(0);
