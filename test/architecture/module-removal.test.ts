import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/database';

/**
 * A module is removable (docs/architecture.md, "The module manifest"): in a copy of the project without
 * the response-times module (its folder and its lines in src/modules/index.ts), the project still
 * type-checks and the app starts, with every background switch on, and answers the other modules.
 * No other module imports it; its own tests and benchmark, which do, go with it.
 */
const ROOT = path.join(__dirname, '..', '..');
const MODULE = 'response-times';
const MODULE_OBJECT = 'responseTimesModule';
/** What `tsc -p .` (tsconfig.json's include) and the app read; node_modules is linked, not copied. */
const COPIED = ['src', 'migrations', 'schema', 'test', 'scripts', 'bench', 'mikro-orm.config.ts', 'tsconfig.json', 'package.json'];

const run = promisify(execFile);
let copy: string;

/** The files of `dir` (node_modules aside) with an import path through the module's folder. */
function importersOf(dir: string): string[] {
  const through = new RegExp(`['"][^'"\\n]*/${MODULE}/[^'"\\n]*['"]`);
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const file = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(file);
      } else if (/\.[cm]?[tj]s$/.test(entry.name) && through.test(fs.readFileSync(path.join(dir, file), 'utf8'))) found.push(file);
    }
  };
  walk('');
  return found.sort();
}

beforeAll(() => {
  // mkdtemp: a 0700 directory of the user running the tests (root included); the database is the run's own.
  copy = fs.mkdtempSync(path.join(os.tmpdir(), 'leadnet-module-removal-'));
  for (const entry of COPIED) fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
});

afterAll(() => {
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

test('without the response-times module the project type-checks, starts and answers the other modules', async () => {
  fs.rmSync(path.join(copy, 'src', 'modules', MODULE), { recursive: true });
  const index = path.join(copy, 'src', 'modules', 'index.ts');
  const lines = fs.readFileSync(index, 'utf8').split('\n');
  const kept = lines.filter((line) => !line.includes(MODULE_OBJECT));
  // Its import and its entry in the list.
  expect(lines.length - kept.length).toBe(2);
  fs.writeFileSync(index, kept.join('\n'));

  // Only the module's own tests and benchmark import it; nothing of the product does.
  const importers = importersOf(copy);
  expect(importers.filter((file) => !/^(test|bench)\//.test(file))).toEqual([]);
  for (const file of importers) fs.rmSync(path.join(copy, file));

  const db = await createTestDatabase();
  try {
    const [, checked] = await Promise.all([
      run(process.execPath, [path.join(copy, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', copy], { cwd: copy, maxBuffer: 64 * 1024 * 1024 }).catch((e) => {
        throw new Error(`tsc --noEmit in the copy failed:\n${e.stdout}${e.stderr}`);
      }),
      run(process.execPath, ['--import', 'tsx', path.join(copy, 'test', 'architecture', 'module-removal.check.ts')], {
        cwd: copy,
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
        maxBuffer: 64 * 1024 * 1024,
      }).catch((e) => {
        throw new Error(`the app of the copy failed:\n${e.stdout}${e.stderr}`);
      }),
    ]);
    const out = JSON.parse(checked.stdout.trim().split('\n').pop()!);
    expect(out.modules).not.toContain(MODULE);
    expect(out.modules).toContain('lead');
    // A REST list and a GraphQL query of other modules, over the demo network.
    expect(out.restLeads).toEqual({ status: 200, page: 2, total: out.seededLeads });
    expect(out.graphqlProducts.status).toBe(200);
    expect(out.graphqlProducts.body.errors).toBeUndefined();
    expect(out.graphqlProducts.body.data.products.meta.total).toBeGreaterThan(0);
    // The module's part of the schema is gone, and with it the IDE's example tab that asks it.
    expect(out.graphqlRemoved.body.errors[0].message).toMatch(/Cannot query field "leadResponseStats"/);
    expect(out.ideNamesRemoved).toBe(false);
    // The start page still finds the demo company (the company module's contribution).
    expect(out.homeDemoCompany).toBe(true);
    expect(out.subscriptions).toBe(0);
  } finally {
    await db.drop();
  }
}, 240_000);
