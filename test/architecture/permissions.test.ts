import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * docs/roles.md, "One way in": outside the policies (`*.policy.ts`, src/access/) nothing refuses or reads a
 * role; every decision is `can(caller, action, target)` of a policy. eslint.config.js states the rule; this
 * runs it over src/ and shows that it catches what it is for.
 */
const ROOT = path.join(__dirname, '..', '..');
const ESLINT = path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');

interface Result {
  filePath: string;
  messages: Array<{ line: number; message: string; severity: number }>;
}

/** ESLint with the committed eslint.config.js (exit code 1 just means it found problems). */
async function eslint(args: string[], input?: string): Promise<Result[]> {
  const run = promisify(execFile)(process.execPath, [ESLINT, '--format', 'json', ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) run.child.stdin!.end(input);
  const { stdout } = await run.catch((e: { stdout?: string; code?: number }) => {
    if (e.code === 1 && e.stdout) return { stdout: e.stdout };
    throw e;
  });
  return JSON.parse(stdout);
}

async function problems(code: string, file: string): Promise<string[]> {
  const [result] = await eslint(['--stdin', '--stdin-filename', file], code);
  return result.messages.filter((m) => m.severity === 2).map((m) => `${m.line}: ${m.message}`); // an ignored file is a warning
}

test('no file of src/ decides a permission outside the policies', async () => {
  const results = await eslint(['src/**/*.ts']);
  const found = results.flatMap((r) => r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.message}`));
  expect(found).toEqual([]);
}, 120_000);

test('a planted refusal or role test in a service fails the rule; the same in a policy passes', async () => {
  const service = `
    import { forbidden } from '../../errors';
    import { Role } from '../user/role';
    export function remove(caller: { role: Role; companyId: string }, companyId: string) {
      if (caller.role !== Role.CompanyAdmin) throw forbidden();
      if (companyId !== caller.companyId) throw forbidden();
    }
    export const admins = "select id from users u where u.role = 'company_admin'";
    export const writable = (table: Record<string, string[]>, caller: { role: string }) => table[caller.role];
  `;
  expect(await problems(service, 'src/modules/lead/planted.service.ts')).toEqual([
    '5: Compare roles in a policy: ask `can(caller, action, target)`.',
    '5: Only policies refuse: ask `authorize(caller, action, target)` (src/access/policy.ts).',
    '6: Only policies refuse: ask `authorize(caller, action, target)` (src/access/policy.ts).',
    '8: SQL that picks users by role belongs to a policy.',
    '9: Look tables up by role in a policy (or `writableBy`).',
  ]);
  expect(await problems(service, 'src/modules/lead/planted.policy.ts')).toEqual([]);
  expect(await problems(`import { companyUser } from '../../access/audience';`, 'src/modules/lead/planted.resolver.ts')).toEqual([
    expect.stringContaining("'../../access/audience' import is restricted"),
  ]);
});
