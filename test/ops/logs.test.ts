import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { projectMigrations } from '../../src/db/migration-files';
import { createTestDatabase } from '../support/database';
import { ROOT, pgPort, privateDir, removePrivateDirs, startChild, stopChildren, type ChildService } from '../support/service';

/**
 * What the service writes on stdout (docs/operations.md, "Logs"): JSON lines only when stdout is not a
 * terminal, from the first start's migrations and demo seed on (its keys in a file, never on stdout);
 * what LOG_LEVEL=debug adds; and that nothing a client sends, nor any message, can forge a line, drive a
 * terminal or blow up a line.
 */
// Each case starts real processes: slow on a busy machine.
jest.setTimeout(240_000);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await stopChildren();
  removePrivateDirs();
  await db.drop();
});

async function stop(service: ChildService) {
  service.child.kill('SIGTERM');
  return service.exited;
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
// Control characters a terminal acts on (ESC, CSI...), apart from the newline that ends a line.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sends raw bytes as one HTTP/1.1 request (what fetch would refuse to send) and returns the raw answer. */
function raw(url: string, request: Buffer | string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(request);
  });
}

/** Requests carrying what an attacker controls: ids with escapes and C1 controls, a huge id, an encoded path. */
async function hostileRequests(url: string): Promise<string[]> {
  const get = (path: string, id: Buffer | string) =>
    raw(url, Buffer.concat([Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: `, 'latin1'), Buffer.from(id), Buffer.from('\r\n\r\n')]));
  return Promise.all([
    get('/healthz', Buffer.from('\x1b[2J\x1b[31mforged\x1b[0m', 'latin1')),
    get('/healthz', Buffer.from('ok\u009b31mC1', 'utf8')),
    get('/healthz', 'x'.repeat(10_000)),
    get('/v1/%1b[31m%0a%0d{"level":60,"msg":"forged"}', 'fine-id'),
    get('/readyz', 'abc\x7fdel'),
  ]);
}

test('the first start off a terminal: every stdout line is JSON, migrations and the demo seed included, with no API key; the keys are in a 0600 file of the data directory; the banner and GET / name /v1/docs and the store finder', async () => {
  const dataDir = path.join(privateDir('leadnet-logs-'), 'data');
  const service = startChild({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort()), SEED_DEMO: 'true', LOG_FORMAT: undefined });
  const url = await service.ready();
  const seeded = JSON.parse((await service.waitFor(/^(\{.*"demo":.*\})$/m))[1]);
  const demo = seeded.demo;
  const out = lines(service.stdout());
  for (const line of out) expect(() => JSON.parse(line)).not.toThrow();
  const parsed = out.map((l) => JSON.parse(l));
  expect(parsed.filter((l) => l.msg === 'migration applied').map((l) => l.migration)).toEqual(projectMigrations().map((m) => m.name));
  const listening = parsed.find((l) => /^leadnet listening/.test(l.msg));
  expect(listening.msg).toContain(`API reference ${url}/v1/docs`);
  expect(listening.docs).toBe(`${url}/v1/docs`);
  expect(demo.links).toEqual({
    start_page: `${url}/`,
    graphiql: `${url}/graphql`,
    api_reference: `${url}/v1/docs`,
    store_finder: `${url}/locator/${demo.company.id}`,
  });

  // The keys: in the file the line names, created for its owner only, and nowhere in the output.
  const keysFile = path.join(dataDir, 'demo-keys.json');
  expect(demo.keys_file).toBe(keysFile);
  expect(seeded.msg).toContain(keysFile);
  expect(fs.statSync(keysFile).mode & 0o777).toBe(0o600);
  const keys = JSON.parse(fs.readFileSync(keysFile, 'utf8'));
  expect(keys.users).toHaveLength(8);
  expect(keys.links).toEqual(demo.links);
  expect(demo.users).toEqual(keys.users.map((u: { role: string; email: string }) => ({ role: u.role, email: u.email })));
  for (const user of keys.users) {
    expect(user.api_key).toMatch(/^lnk_/);
    expect(service.output()).not.toContain(user.api_key);
  }
  expect(service.output()).not.toMatch(/lnk_[A-Za-z0-9_-]{20,}/);
  const admin = keys.users.find((u: { role: string }) => u.role === 'company_admin');
  expect((await fetch(`${url}/v1/products`, { headers: { 'X-Api-Key': admin.api_key } })).status).toBe(200);

  const home = await fetch(`${url}/`, { headers: { Accept: 'application/json' } });
  expect(home.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await home.json()).toMatchObject({
    links: { graphiql: '/graphql', api_reference: '/v1/docs', openapi: '/v1/openapi.json', store_finder: `/locator/${demo.company.id}` },
    demo_company: { id: demo.company.id, name: 'Cascade Cycles', store_finder: `/locator/${demo.company.id}` },
  });
  const page = await fetch(`${url}/`, { headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  for (const href of ['/graphql', '/v1/docs', `/locator/${demo.company.id}`]) {
    expect(html).toContain(`href="${href}"`);
    expect((await fetch(`${url}${href}`, { headers: { Accept: 'text/html' } })).status).toBe(200);
  }
  expect(html).toContain('Store finder of Cascade Cycles');
  expect(await stop(service)).toMatchObject({ code: 0 });
  for (const line of lines(service.stdout())) expect(() => JSON.parse(line)).not.toThrow();
});

test('LOG_LEVEL=debug: one line per SQL statement with its duration and the request id, and a per-request summary on the access line', async () => {
  const service = startChild({ DATABASE_URL: db.url, LOG_LEVEL: 'debug', LOG_FORMAT: 'json' });
  const url = await service.ready();
  const reqId = 'debug-timing-1';
  expect((await fetch(`${url}/readyz`, { headers: { 'X-Request-Id': reqId } })).status).toBe(200);
  const access = JSON.parse((await service.waitFor(new RegExp(`^(\\{.*"reqId":"${reqId}".*"msg":"request"\\})$`, 'm')))[1]);
  const sql = lines(service.stdout())
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === 'sql' && l.reqId === reqId);
  expect(sql.length).toBeGreaterThan(0);
  for (const line of sql) {
    expect(line).toMatchObject({ level: 20, sql: expect.any(String), ms: expect.any(Number) });
    expect(line.sql).not.toMatch(/'[^']*@/); // placeholders, never values
  }
  expect(access).toMatchObject({ route: '/readyz', status: 200, sql: { statements: sql.length, ms: sql.reduce((sum, l) => sum + l.ms, 0) } });
  expect(await stop(service)).toMatchObject({ code: 0 });
});

test.each([
  ['json', { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' }],
  ['pretty (as on a terminal)', { LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' }],
] as const)('hostile request ids and paths never reach the %s log raw: no control characters, no forged lines, bounded lines', async (format, env) => {
  const service = startChild({ DATABASE_URL: db.url, ...env });
  const url = await service.ready();
  const answers = await hostileRequests(url);
  // Each answered request has its access line; the ids echoed are the sane one or fresh UUIDs.
  const echoed = answers.map((a) => /\r\nX-Request-Id: ([^\r]*)\r\n/i.exec(a)?.[1]).filter((id): id is string => id !== undefined);
  expect(echoed.length).toBeGreaterThan(0);
  for (const id of echoed) expect(id === 'fine-id' || UUID.test(id)).toBe(true);
  for (const id of echoed) await service.waitFor(new RegExp(id));
  expect(await stop(service)).toMatchObject({ code: 0 });

  const out = service.stdout();
  expect(out).not.toMatch(RAW_CONTROL);
  for (const line of lines(out)) {
    expect(line.length).toBeLessThan(4096);
    if (format === 'json') expect(() => JSON.parse(line)).not.toThrow();
    else expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|DEBUG)( \(\d+\))?: /); // pino-pretty: "(pid)" when a line has one
  }
  expect(out).not.toContain('forged"');
  if (format !== 'json') expect(out).not.toMatch(/"msg":"sql"|\] DEBUG: sql/); // statements only at debug
});

test.each(['json', 'pretty'])('a hostile message, field and error are cleaned by the logger itself (%s)', async (format) => {
  const script = `const { logger } = require('./src/logger');
    const err = new Error('bad \\x1b[2J thing\\n    at forged (evil.js:1:1)\\n' + 'x'.repeat(100000));
    logger.error({ err, header: 'a\\x1b]0;title\\x07\\u009b31m\\nnext', big: 'y'.repeat(1000000) }, 'msg \\x1b[1mbold\\n[00:00:00.000] INFO: forged');`;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, env: { ...process.env, LOG_FORMAT: format, LOG_LEVEL: 'info' } }, (e, out) =>
      e ? reject(e) : resolve(out),
    ),
  );
  expect(stdout).not.toMatch(RAW_CONTROL);
  expect(stdout.length).toBeLessThan(20_000);
  if (format === 'json') {
    expect(lines(stdout)).toHaveLength(1);
    const entry = JSON.parse(stdout);
    expect(entry.big).toMatch(/^y{2048}\.\.\. \(997952 more characters\)$/);
    expect(entry.msg).toBe('msg \\u001b[1mbold\n[00:00:00.000] INFO: forged');
    const [head, ...frames] = entry.err.stack.split('\n');
    expect(head).toContain('thing\\n    at forged (evil.js:1:1)\\n'); // the message's newlines made no frame
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^\s+at (?!forged)/);
  } else {
    const [first, ...rest] = lines(stdout);
    expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: msg \\u001b\[1mbold\\n\[00:00:00\.000\] INFO: forged /);
    // The error block: indented, and no line of it starts like a log line or a forged frame.
    for (const line of rest) expect(line).toMatch(/^ {4}/);
    expect(rest.filter((l) => /^\s+at forged/.test(l))).toEqual([]);
  }
});
