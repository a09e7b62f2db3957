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
