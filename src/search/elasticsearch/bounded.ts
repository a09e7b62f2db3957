import type { IncomingMessage } from 'node:http';
import type { Connection as OpenSearchConnection } from '@opensearch-project/opensearch';

/**
 * OpenSearch's client reads an answer's body without a bound: its request timeout stops once the headers
 * have arrived, and a chunked body is collected whatever its size (only a declared Content-Length is
 * checked). An engine, or a proxy before it, that stalls in the middle of a body would hold the request
 * for ever, and one that sends an endless body would fill the heap. Its connections are made of this class
 * instead: an answer's body must end within `timeoutMs` of its headers (the request's own timeout) and hold
 * at most `maxBytes`, or it is destroyed, which the client reports as a ConnectionError (for a list, an
 * engine that gave no answer: 503). Elastic's client has both bounds of its own (`maxResponseSize`, and
 * undici's body timeout).
 */
export function boundedConnection(Base: typeof OpenSearchConnection, maxBytes: number): typeof OpenSearchConnection {
  return class BoundedConnection extends Base {
    override request(params: Parameters<OpenSearchConnection['request']>[0], callback: Parameters<OpenSearchConnection['request']>[1]) {
      return super.request(params, (err, response) => {
        if (response) bound(response, (params as { timeout?: number }).timeout, maxBytes);
        callback(err, response);
      });
    }
  };
}

function bound(response: IncomingMessage, timeoutMs: number | undefined, maxBytes: number): void {
  let read = 0;
  const timer = timeoutMs ? setTimeout(() => response.destroy(new Error(`the engine's answer did not end within ${timeoutMs} ms`)), timeoutMs) : undefined;
  timer?.unref();
  // Counted before the client's own listener sees the chunk (both are added before the body flows).
  response.on('data', (chunk: Buffer | string) => {
    read += chunk.length;
    if (read > maxBytes) response.destroy(new Error(`the engine's answer is larger than ${maxBytes} bytes`));
  });
  response.once('close', () => clearTimeout(timer));
}
