import path from 'node:path';
import ts from 'typescript';
import { compilerOptions, isSqlHome, listCalls, ROOT, sourceFiles, sqlOutsideHomes } from './sql-homes';

/**
 * SQL is sent only from repositories, queries files and src/db/ (docs/architecture.md, "Repositories
 * own SQL, services orchestrate"). A failure names each file and line that sends a statement elsewhere:
 * move the statement into the module's `<resource>.repository.ts` (or `<name>.queries.ts`) and call it.
 */

/** A source sending SQL every way the check knows of, and calls that send none; planted as a service and as a repository. */
const PLANTED = `
import type { EntityManager } from '@mikro-orm/postgresql';
import { execute as graphqlExecute, parse, type GraphQLSchema } from 'graphql';
import { Client } from 'pg';
import { query as run, type Execute } from '../../db/sql';

export async function planted(em: EntityManager, schema: GraphQLSchema, runner: Execute, client: Client) {
  await em.execute('select 1');
  const manager = em;
  await manager.getConnection().execute('select 2', []);
  await run(em, 'select 3');
  await em.getConnection().getKnex().raw('select 4');
  await runner('select 5', []);
  await client.query('select 6');
  const local = async (sql: string, bindings: unknown[]) => em.execute(sql, bindings as any[]);
  await local('select 7', []);
  await graphqlExecute({ schema, document: parse('{ a }') });
  const service = { execute: (input: string) => input, query: (input: string) => input };
  service.execute('no SQL');
  service.query('no SQL');
}
`;
const PLANTED_FILES = ['src/modules/planted/planted.service.ts', 'src/modules/planted/planted.repository.ts'].map((f) => path.join(ROOT, f));

let files: string[];
let program: ts.Program;

/** One program of the sources and the planted files (in memory only). */
beforeAll(() => {
  files = sourceFiles();
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const planted = (name: string) => PLANTED_FILES.includes(path.resolve(name));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => (planted(name) ? ts.createSourceFile(name, PLANTED, language, true) : getSourceFile(name, language, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => planted(name) || fileExists(name);
  program = ts.createProgram([...files, ...PLANTED_FILES], options, host);
}, 120_000);

test('SQL is sent only from repositories, queries files and src/db/', () => {
  expect(files.length).toBeGreaterThan(100);
  expect(listCalls(sqlOutsideHomes(program, files))).toEqual([]);
}, 120_000);

describe('the check itself', () => {
  const lint = (file: string) => sqlOutsideHomes(program, [file]).map((c) => `${c.line} ${c.callee}: ${c.what}`);

  test('names each call that sends SQL outside a repository, by line', () => {
    expect(lint(PLANTED_FILES[0])).toEqual([
      "8 em.execute: MikroORM's execute",
      "10 manager.getConnection().execute: MikroORM's execute",
      '11 run: query (src/db/sql.ts)',
      "12 em.getConnection().getKnex().raw: knex's raw",
      "12 em.getConnection().getKnex: MikroORM's getKnex",
      '13 runner: an SQL runner (Execute)',
      "14 client.query: node-postgres' query",
      "15 em.execute: MikroORM's execute",
      '16 local: an SQL runner (Execute)',
    ]);
    expect(listCalls(sqlOutsideHomes(program, [PLANTED_FILES[0]]))[0]).toBe(
      "src/modules/planted/planted.service.ts:8 em.execute(...) sends SQL through MikroORM's execute",
    );
  });

  test('allows repositories, queries files and src/db/', () => {
    expect(['src/modules/planted/planted.repository.ts', 'src/modules/planted/planted.queries.ts', 'src/db/planted.ts'].every(isSqlHome)).toBe(true);
    expect(['src/modules/planted/planted.service.ts', 'src/modules/planted/repository.ts', 'src/dbx/planted.ts'].some(isSqlHome)).toBe(false);
    expect(lint(PLANTED_FILES[1])).toEqual([]);
  });
});
