import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const ESLINT = path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');

interface LintMessage {
  ruleId: string | null;
  message: string;
  line: number;
}

/** ESLint with the committed eslint.config.js over SDL given as text, as if it were `file`. */
function lint(sdl: string, file: string): LintMessage[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [ESLINT, '--format', 'json', '--stdin', '--stdin-filename', file], { cwd: root, input: sdl, encoding: 'utf8' });
  } catch (e) {
    // ESLint exits 1 when it reports problems; its JSON report is on stdout either way.
    out = (e as { stdout?: string }).stdout ?? '';
    if (!out) throw e;
  }
  const [result] = JSON.parse(out) as Array<{ messages: LintMessage[] }>;
  return result.messages;
}

test('schema/schema.graphql passes the rules of eslint.config.js (run `npm run schema:emit` after GraphQL changes)', () => {
  const file = path.join('schema', 'schema.graphql');
  const sdl = fs.readFileSync(path.join(root, file), 'utf8');
  expect(lint(sdl, file).map((m) => `${m.line}: ${m.message} (${m.ruleId})`)).toEqual([]);
});

test('the kept rules refuse an undescribed field, a snake_case input value and a lower-case value of a new enum', () => {
  const sdl = `
    "A filter." input ProbeFilter { "Logical." _and: [ProbeFilter!]  "Nested write." _destroy: Boolean  "Not camel case." post_code: String }
    "A kind." enum ProbeKind { "New enums are SCREAMING_SNAKE_CASE." someKind  "Fine." SOME_KIND }
    "A probe." type Probe { "The id." id: ID!  "Described." kind(where: ProbeFilter): ProbeKind  bare: Int }`;
  const messages = lint(sdl, path.join('schema', 'lint-probe.graphql'));
  const found = (rule: string, text: string) => messages.some((m) => m.ruleId === `@graphql-eslint/${rule}` && m.message.includes(text));
  expect(found('require-description', 'bare')).toBe(true);
  expect(found('require-description', 'where')).toBe(true);
  expect(found('naming-convention', 'post_code')).toBe(true);
  expect(found('naming-convention', 'someKind')).toBe(true);
  expect(messages.filter((m) => m.ruleId === '@graphql-eslint/naming-convention' && /_and|_destroy|SOME_KIND/.test(m.message))).toEqual([]);
});

test('the enums whose names clients already use keep them', () => {
  const sdl = '"Roles." enum Role { "Admin." company_admin }\n"Rules." enum RoutingRule { "Nearest." Nearest }';
  const messages = lint(sdl, path.join('schema', 'lint-probe.graphql'));
  expect(messages.filter((m) => m.ruleId === '@graphql-eslint/naming-convention')).toEqual([]);
});
