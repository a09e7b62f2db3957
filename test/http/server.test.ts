import http, { type Server } from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { createTestApp, type TestApp } from '../support/app';
import * as f from '../support/factories';
import { Role } from '../../src/modules/user/role';
import { configureServer } from '../../src/http/server';
import { parseConfig } from '../../src/config';
import { SchedulingSlack } from '../support/timing';

let t: TestApp;
let server: Server;
let port: number;
let key: string;

const HEADERS_TIMEOUT = 600;
const REQUEST_TIMEOUT = 1200;
// Server and client share this process: on a busy machine Node's timeout sweep fires late by the event
// loop's delay, which the upper bounds allow for (far below Node's defaults: 60 s, 300 s, 5 s).
const slack = new SchedulingSlack();
const within = (bound: number) => bound + slack.ms();

beforeAll(async () => {
  slack.start();
  t = await createTestApp();
  key = (await f.userWithKey(t.em(), Role.CompanyAdmin, await f.company(t.em()))).key;
  const config = parseConfig({
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
    HTTP_IDLE_TIMEOUT_MS: '10000',
  });
  // As main.ts does: listen, then configure at once.
  server = t.app.listen(0, '127.0.0.1');
  configureServer(server, config);
  await once(server, 'listening');
  port = (server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  slack.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

interface Outcome {
  /** Everything the server wrote before closing. */
  text: string;
  closedAfterMs: number;
}

/** A raw connection: `drive` writes to it; resolves when the server closes it (fails the test after `bound` ms). */
function connection(drive: (socket: net.Socket) => void, bound = 30_000): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    slack.reset();
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => drive(socket));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${bound} ms`));
    }, bound);
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedAfterMs: Date.now() - started });
    });
  });
}

function parse(text: string) {
  const [head, body] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) };
}

describe('timeouts', () => {
  test('a connection that never sends a byte is closed with a JSON 408 once the header timeout passes', async () => {
    const outcome = await connection(() => undefined);
    const res = parse(outcome.text);
    expect(res.status).toBe(408);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual({ status: 408, error: 'Request Timeout', message: 'The request was not received in time' });
    // Node sweeps connections every second (configureServer): the bound is the timeout plus one sweep.
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 50);
    expect(outcome.closedAfterMs).toBeLessThan(within(HEADERS_TIMEOUT + 2500));
  });

  test('many silent connections are all closed', async () => {
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => connection(() => undefined)));
    expect(outcomes.every((o) => parse(o.text).status === 408)).toBe(true);
  });

  test('headers trickled one line at a time are cut', async () => {
    let timer: NodeJS.Timeout | undefined;
    const outcome = await connection((s) => {
      s.write(`GET /v1/products HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\n`);
      timer = setInterval(() => s.writable && s.write('X-Slow: 1\r\n'), 100);
    });
    clearInterval(timer);
    expect(parse(outcome.text).status).toBe(408);
    expect(outcome.closedAfterMs).toBeLessThan(within(HEADERS_TIMEOUT + 2500));
  });

  test('a body trickled a byte at a time is cut at the request timeout', async () => {
    let timer: NodeJS.Timeout | undefined;
    const outcome = await connection((s) => {
      s.write(`POST /v1/products HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      timer = setInterval(() => s.writable && s.write(' '), 100);
    });
    clearInterval(timer);
    expect(parse(outcome.text)).toMatchObject({ status: 408, body: { status: 408, error: 'Request Timeout' } });
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 50);
    expect(outcome.closedAfterMs).toBeLessThan(within(REQUEST_TIMEOUT + 2500));
  });

  test('an idle kept-alive connection is closed soon after its request (Node would keep it 5 s)', async () => {
    const outcome = await connection((s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(outcome.closedAfterMs).toBeLessThan(within(3500));
    expect(outcome.text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(outcome.text).toContain('{"status":"ok"}');
  });

  test('the server keeps answering normal requests', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/products`, { headers: { 'X-Api-Key': key } });
    expect(res.status).toBe(200);
  });
});

describe("what Node's HTTP parser refuses, in the contract's style", () => {
  const huge = 'a'.repeat(20_000);

  test('431 on /v1 is a SPEC 7 envelope', async () => {
    const outcome = await connection((s) => s.write(`GET /v1/products HTTP/1.1\r\nHost: x\r\nX-Big: ${huge}\r\n\r\n`));
    const res = parse(outcome.text);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ status: 431, error: 'Request Header Fields Too Large', message: 'Request headers are too large' });
  });

  test('431 on /graphql is a GraphQL error with a code', async () => {
    const outcome = await connection((s) => s.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nX-Big: ${huge}\r\n\r\n`));
    const res = parse(outcome.text);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ errors: [{ message: 'Request headers are too large', extensions: { code: 'REQUEST_HEADERS_TOO_LARGE' } }] });
  });

  test('unparsable HTTP is a JSON 400', async () => {
    const outcome = await connection((s) => s.write('NOT HTTP AT ALL\r\n\r\n'));
    const res = parse(outcome.text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 400, error: 'Bad Request', message: 'Malformed HTTP request' });
  });
});

test('a JSON body sent without any Content-Type is read as JSON', async () => {
  const body = JSON.stringify({ product: { sku: 'NO-TYPE', name: 'No type' } });
  const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/v1/products', headers: { 'X-Api-Key': key, 'Content-Length': Buffer.byteLength(body) } }, (r) => {
      let text = '';
      r.on('data', (d) => (text += d));
      r.on('end', () => resolve({ status: r.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ sku: 'NO-TYPE' });
});
