import path from 'node:path';
import ts from 'typescript';

/**
 * "Repositories own SQL, services orchestrate" (docs/architecture.md): a statement is sent only from a
 * repository (`<resource>.repository.ts`), a queries file (`<name>.queries.ts`) or `src/db/`. This finds
 * every call elsewhere in `src/` that sends one, by what the call resolves to (the type checker's), not
 * by its spelling: graphql's `execute` or graphql-jit's `query` are no SQL, an EntityManager under any
 * name is.
 */
export const ROOT = path.join(__dirname, '..', '..');

/** Where statements may be sent from (a path relative to the project, `/`-separated). */
export function isSqlHome(file: string): boolean {
  return file.startsWith('src/db/') || /\.(repository|queries)\.ts$/.test(file);
}

export interface SqlCall {
  /** Relative to the project. */
  file: string;
  line: number;
  /** The call's callee as written (`this.em.execute`) and what it sends through. */
  callee: string;
  what: string;
}

const inPackage = (file: string, name: string) => file.includes(`/node_modules/${name}/`);

/** What the call sends SQL through, or null when it sends none. */
function sqlTarget(checker: ts.TypeChecker, call: ts.CallExpression): string | null {
  const declaration = checker.getResolvedSignature(call)?.declaration;
  if (!declaration || ts.isJSDocSignature(declaration)) return null;
  const file = declaration.getSourceFile().fileName.split(path.sep).join('/');
  // A call signature of an interface (knex's `RawBuilder`) has no name: the callee's is the method's.
  const callee = ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
  const name = declaration.name && ts.isIdentifier(declaration.name) ? declaration.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
  if (inPackage(file, '@mikro-orm') && (name === 'execute' || name === 'getKnex' || name === 'raw')) return `MikroORM's ${name}`;
  if (inPackage(file, 'knex') && name === 'raw') return "knex's raw";
  if ((inPackage(file, '@types/pg') || inPackage(file, 'pg')) && name === 'query') return "node-postgres' query";
  if (file.endsWith('/src/db/sql.ts') && name === 'query') return 'query (src/db/sql.ts)';
  // A statement runner handed around as a value: `Execute` (src/db/sql.ts) or any function type like it.
  const first = declaration.parameters[0];
  if (
    (ts.isFunctionTypeNode(declaration) || ts.isArrowFunction(declaration) || ts.isFunctionExpression(declaration)) &&
    first &&
    ts.isIdentifier(first.name) &&
    first.name.text === 'sql'
  ) {
    const returns = checker.getReturnTypeOfSignature(checker.getSignatureFromDeclaration(declaration)!);
    if (returns.getSymbol()?.getName() === 'Promise') return 'an SQL runner (Execute)';
  }
  return null;
}

/** The calls that send SQL in `files` (absolute paths) of `program`, outside the places allowed. */
export function sqlOutsideHomes(program: ts.Program, files: readonly string[]): SqlCall[] {
  const checker = program.getTypeChecker();
  const found: SqlCall[] = [];
  for (const fileName of files) {
    const file = path.relative(ROOT, fileName).split(path.sep).join('/');
    if (isSqlHome(file)) continue;
    const source = program.getSourceFile(fileName);
    if (!source) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const what = sqlTarget(checker, node);
        if (what) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push({ file, line, callee: node.expression.getText(source).replace(/\s+/g, ''), what });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The compiler options of tsconfig.json. */
export function compilerOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  return { ...parsed!.options, noEmit: true };
}

/** Every TypeScript source of src/ that tsconfig.json compiles. */
export function sourceFiles(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const src = path.join(ROOT, 'src') + path.sep;
  return parsed!.fileNames.map((f) => path.resolve(f)).filter((f) => f.startsWith(src));
}

/** `file: line callee (what)`, one a line. */
export const listCalls = (calls: readonly SqlCall[]) => calls.map((c) => `${c.file}:${c.line} ${c.callee}(...) sends SQL through ${c.what}`);
