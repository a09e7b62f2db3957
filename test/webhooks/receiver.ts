import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** A real local HTTP receiver: records every request; answers with the queued statuses, then 200. */
export async function startReceiver() {
  const received: Received[] = [];
  const replies: Array<{ status: number; headers?: Record<string, string>; delayMs?: number }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      received.push({ path: req.url ?? '', headers: req.headers, body, json });
      const reply = replies.shift() ?? { status: 200 };
      const answer = () => {
        res.writeHead(reply.status, reply.headers ?? {});
        res.end('ok');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    replies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A hostile receiver on 127.0.0.1: `handle` gets every request once its body has arrived (or, with
 * `early`, at once) and may answer slowly, hugely or never. Records when each request arrived.
 */
export async function startHostile(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void, options: { early?: boolean } = {}) {
  const arrived: Array<{ path: string; at: number }> = [];
  const server = http.createServer((req, res) => {
    arrived.push({ path: req.url ?? '', at: Date.now() });
    if (options.early) return handle(req, res);
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    arrived,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `check` holds, polling every 20 ms; fails after `timeoutMs` with `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
