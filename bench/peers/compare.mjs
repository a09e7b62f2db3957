// Two runs of bench.mjs side by side (e.g. 100,000 and 1,000,000 leads), as markdown tables:
//   node bench/peers/compare.mjs <results dir A> <results dir B> [label A] [label B]
// Lists against PostGraphile: rps of each system and leadnet / PostGraphile, per run. Role cases: p50 and
// p99 per run, p50 B / A, the leads on each run's page, and the non-2xx answers (503s under overload count in autocannon's latencies). Runs
// with a search engine (run.sh with SEARCH_BACKEND=opensearch) get one row per role with both backends side by side.
import fs from 'node:fs';
import path from 'node:path';

const [dirA, dirB, labelA = 'A', labelB = 'B'] = process.argv.slice(2);
const read = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));
const a = read(dirA);
const b = read(dirB);
const row = (res, c, system) => res.summary.find((s) => s.case === c)?.rows.find((r) => r.system === system);
const load = (res) => res.rounds.map((r) => /load average: ([\d.]+)/.exec(r.uptime)?.[1]).join(' / ');

const out = [`Load average (1 min) at each round: ${labelA} ${load(a)}, ${labelB} ${load(b)}.`, ''];
out.push(`| case | ${labelA}: leadnet rps | PostGraphile rps | leadnet / PostGraphile | ${labelB}: leadnet rps | PostGraphile rps | leadnet / PostGraphile |`, '|---|---:|---:|---:|---:|---:|---:|');
for (const s of a.summary.filter((x) => x.rows.some((r) => r.system === 'PostGraphile'))) {
  const cells = [a, b].flatMap((res) => {
    const l = row(res, s.case, 'leadnet REST');
    const p = row(res, s.case, 'PostGraphile');
    return l && p ? [l.rps.toFixed(1), p.rps.toFixed(1), `${(l.rps / p.rps).toFixed(2)}x`] : ['', '', ''];
  });
  out.push(`| ${s.case} | ${cells.join(' | ')} |`);
}
const total = (res, c, system) => res.payloads?.find((p) => p.case === c)?.detail?.[system]?.total ?? '';
// The leads on the page each answer carried (checked before timing). A row whose two runs answered pages of
// different lengths (a role that sees 8 leads at one size and 52 at the other, a page 50 past the end of the
// smaller scope) times different work: its ratio says little about growth with the table.
const pageRows = (res, c, systems) => systems.map((n) => res.payloads?.find((p) => p.case === c)?.detail?.[n]?.ids).find((v) => v !== undefined) ?? '';
const rowsCell = (c, systems) => {
  const [x, y] = [pageRows(a, c, systems), pageRows(b, c, systems)];
  return `${x} / ${y}${x !== '' && y !== '' && x !== y ? ' (different pages)' : ''}`;
};
const ENGINE_RE = /^leadnet REST \((\w+)\) (.+)$/;
const engines = [...new Set([a, b].flatMap((res) => res.summary.flatMap((s) => s.rows.map((r) => ENGINE_RE.exec(r.system)?.[1]).filter(Boolean))))];
if (!engines.length) {
  out.push('', `| case | role | total ${labelA} | p50 ${labelA} ms | p99 ${labelA} ms | total ${labelB} | p50 ${labelB} ms | p99 ${labelB} ms | p50 ${labelB} / ${labelA} | leads on the page ${labelA} / ${labelB} | non-2xx ${labelA} / ${labelB} |`, '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const s of a.summary.filter((x) => x.case.startsWith('leads_'))) {
    for (const r of s.rows) {
      const other = row(b, s.case, r.system);
      if (!other) continue;
      out.push(`| ${s.case} | ${r.system.replace('leadnet REST ', '')} | ${total(a, s.case, r.system)} | ${r.p50} | ${r.p99} | ${total(b, s.case, r.system)} | ${other.p50} | ${other.p99} | ${(other.p50 / r.p50).toFixed(2)}x | ${rowsCell(s.case, [r.system])} | ${r.non2xx} / ${other.non2xx} |`);
    }
  }
} else {
  // Both backends in each run (run.sh with SEARCH_BACKEND=<engine>): per role, PostgreSQL and the engine side by side.
  const backends = [['PostgreSQL', (role) => `leadnet REST ${role}`], ...engines.map((e) => [e, (role) => `leadnet REST (${e}) ${role}`])];
  const ratio = (x, y) => (x && y ? `${(y.p50 / x.p50).toFixed(2)}x` : '');
  const cell = (x) => (x ? `${x.p50} / ${x.p99}` : 'not run');
  out.push('', `| case | role | total ${labelA} | total ${labelB} | ${backends.map(([n]) => `${n} p50 / p99 ${labelA} ms | ${n} p50 / p99 ${labelB} ms | ${n} p50 ${labelB} / ${labelA}`).join(' | ')} | non-2xx ${backends.map(([n]) => n).join(', ')} (${labelA} / ${labelB}) | leads on the page ${labelA} / ${labelB} |`,
    `|---|---|---:|---:|${backends.map(() => '---:|---:|---:|').join('')}---|---|`);
  const roles = (res, c) => [...new Set(res.summary.find((s) => s.case === c)?.rows.map((r) => ENGINE_RE.exec(r.system)?.[2] ?? r.system.replace('leadnet REST ', '')) ?? [])];
  for (const s of a.summary.filter((x) => x.case.startsWith('leads_'))) {
    for (const role of roles(a, s.case)) {
      const sys = backends.map(([, name]) => name(role));
      const totalOf = (res) => sys.map((n) => total(res, s.case, n)).find((t) => t !== '') ?? '';
      const cells = backends.map(([, name]) => {
        const x = row(a, s.case, name(role));
        const y = row(b, s.case, name(role));
        return `${cell(x)} | ${cell(y)} | ${ratio(x, y)}`;
      });
      const non2xx = backends.map(([, name]) => `${row(a, s.case, name(role))?.non2xx ?? '-'} / ${row(b, s.case, name(role))?.non2xx ?? '-'}`).join(', ');
      out.push(`| ${s.case} | ${role} | ${totalOf(a)} | ${totalOf(b)} | ${cells.join(' | ')} | ${non2xx} | ${rowsCell(s.case, sys)} |`);
    }
  }
}
console.log(out.join('\n'));
