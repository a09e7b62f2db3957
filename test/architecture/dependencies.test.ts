import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The layering rule of docs/architecture.md: dependency-cruiser with `.dependency-cruiser.cjs` (no lower
 * folder imports src/modules/, nothing imports the composition), and no import cycle between the
 * top-level areas of src/ (each folder, and each file directly under src/, is one node), nor between
 * the files of src/, except among the ORM entities (`*.entity.ts`: MikroORM's relations name each other
 * both ways). Type-only imports (`import type`) count too: they are erased when compiling, but a layer
 * that names an upper layer's type still depends on it (a lower layer names the part it reads, e.g.
 * `SearchContext`).
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

/** An entity file: MikroORM relations need entities that name each other (`Lead` <-> `LeadActivity`). */
const isEntity = (file: string) => file.endsWith('.entity.ts');

test('no import cycle between the files of src/, except among entities', () => {
  const graph = new Map<string, Set<string>>();
  for (const m of cruise.modules) {
    if (!m.source.startsWith('src/')) continue;
    const targets = graph.get(m.source) ?? new Set<string>();
    graph.set(m.source, targets);
    for (const d of m.dependencies) if (d.resolved.startsWith('src/') && d.resolved !== m.source) targets.add(d.resolved);
  }
  expect(graph.size).toBeGreaterThan(100);
  // A file is on a cycle exactly when its strongly connected group has more than one file: a group of
  // entities alone is allowed; any other file on it (a service between two entities) is not.
  expect(cycles(graph).filter((group) => !group.every(isEntity))).toEqual([]);
});
