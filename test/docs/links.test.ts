import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

/**
 * Every relative link of the project's Markdown (README, docs/, CHANGELOG, the READMEs beside the code)
 * reaches a file that exists and, with a `#fragment`, a heading of that file as GitHub names it.
 */
const ROOT = path.join(__dirname, '..', '..');
const markdown = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && fs.existsSync(path.join(ROOT, f)));

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a file offers: its headings (a repeated one gets -1, -2...) and explicit `id`/`name` anchors. */
function anchors(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8');
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

function links(text: string): string[] {
  const body = prose(text);
  return [...[...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]), ...[...body.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1])];
}

test('the Markdown files are found', () => {
  expect(markdown).toEqual(expect.arrayContaining(['README.md', 'docs/product.md', 'docs/configuration.md']));
});

test.each(markdown)('%s: every relative link reaches a file and heading that exist', (file) => {
  const problems: string[] = [];
  for (const link of links(fs.readFileSync(path.join(ROOT, file), 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) continue; // http:, mailto: ...
    const [target, fragment] = link.split('#', 2);
    const resolved = target === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(target));
    if (!fs.existsSync(resolved)) {
      problems.push(`${link}: no such file`);
      continue;
    }
    if (fragment !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(decodeURIComponent(fragment))) {
      problems.push(`${link}: no heading with that anchor in ${path.relative(ROOT, resolved)}`);
    }
  }
  expect(problems).toEqual([]);
});

test("the anchor of a heading is GitHub's", () => {
  expect(slug('6. Lists and search')).toBe('6-lists-and-search');
  expect(slug('Rate limits, timeouts and CORS')).toBe('rate-limits-timeouts-and-cors');
  expect(slug('Scope (product.md, section 3)')).toBe('scope-productmd-section-3');
  expect(slug('`npm start` on Node 20')).toBe('npm-start-on-node-20');
});
