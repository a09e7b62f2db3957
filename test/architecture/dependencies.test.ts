import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The layering rule of docs/architecture.md: dependency-cruiser with `.dependency-cruiser.cjs` (no lower
 * folder imports src/modules/, nothing imports the composition), and no import cycle between the
 * top-level areas of src/ (each folder, and each file directly under src/, is one node). Type-only
 * imports (`import type`) count too: they are erased when compiling, but a layer that names an upper
 * layer's type still depends on it (a lower layer names the part it reads, e.g. `SearchContext`).
 */
const ROOT = path.join(__dirname, '..', '..');

interface Cruise {
  summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> };
  modules: Array<{ source: string; dependencies: Array<{ resolved: string; dependencyTypes: string[] }> }>;
}

let cruise: Cruise;

beforeAll(async () => {
  const bin = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
  const { stdout } = await promisify(execFile)(process.execPath, [bin, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  cruise = JSON.parse(stdout);
}, 600_000);

/** `src/graphql/schema.ts` -> `src/graphql`; `src/app.ts` -> `src/app.ts`; outside src/ -> null. */
function area(file: string): string | null {
  const m = /^src\/([^/]+)/.exec(file);
  return m ? `src/${m[1]}` : null;
}

/** The strongly connected groups of more than one node (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no lower folder imports a module, nothing imports the composition', () => {
  expect(cruise.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
});

test('no import cycle between the areas of src/', () => {
  const graph = new Map<string, Set<string>>();
  for (const m of cruise.modules) {
    const from = area(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = area(d.resolved);
      if (!to || to === from) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  expect(graph.size).toBeGreaterThan(10);
  expect(cycles(graph)).toEqual([]);
});
