import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Config } from '../config';
import { AppError } from '../errors';
import { errorResponse } from './errors';

/** How often Node sweeps connections for the header and request timeouts (it reads this at 'listening'). */
const CHECK_INTERVAL_MS = 1000;

/**
 * Socket timeouts and JSON answers for what Node refuses before express sees a request. Call it right
 * after `listen()`:
 * - `headersTimeout`: a connection must send complete headers in time (a silent one is closed with 408),
 * - `requestTimeout`: and its whole body (slowloris bodies are cut with 408),
 * - `keepAliveTimeout`: an idle kept-alive connection is closed,
 * - `timeout`: a socket with no traffic either way (a client that stops reading) is destroyed.
 */
export function configureServer(server: Server, config: Pick<Config, 'http'>): void {
  const t = config.http;
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  server.timeout = t.idleTimeoutMs;
  // Node's type definitions omit this (documented) property; the default sweep is every 30 s.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(CHECK_INTERVAL_MS, t.headersTimeoutMs);
  server.on('clientError', answerClientError);
}

const PARSER_STATUS: Record<string, { code: AppError['code']; message: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'REQUEST_HEADERS_TOO_LARGE', message: 'Request headers are too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { code: 'PAYLOAD_TOO_LARGE', message: 'Chunk extensions are too large' },
};

/**
 * Node's own refusals (431 headers too large, 408 timeouts, 400 unparsable HTTP) as JSON in the
 * contract's style; the request line, when Node read it, decides between GraphQL's and SPEC 7's form.
 */
export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
  const pending = (socket as any)._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || (pending && pending.headersSent)) {
    socket.destroy();
    return;
  }
  const known = PARSER_STATUS[err.code ?? ''];
  const error = new AppError(known?.code ?? 'BAD_REQUEST', known?.message ?? 'Malformed HTTP request');
  const path = /^[A-Z]+ (\S+)/.exec(err.rawPacket?.toString('latin1', 0, 200) ?? '')?.[1] ?? '/';
  const { status, body } = errorResponse(path, error);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n` +
      'Connection: close\r\n\r\n' +
      json,
  );
}
