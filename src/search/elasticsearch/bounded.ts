import type { IncomingMessage } from 'node:http';
import type { Connection as OpenSearchConnection } from '@opensearch-project/opensearch';
import type { UndiciConnection } from '@elastic/elasticsearch';

/*
 * An engine answer, headers and body, must be complete within about twice the request's timeout and hold
 * at most `SEARCH_MAX_RESPONSE_MB`; otherwise it is cut off, and the client reports the request as one that
 * got no answer (for a list: 503). Neither client bounds a whole answer on its own: their timeouts stop at
 * the headers (OpenSearch's) or measure the silence between two chunks (Elastic's), so an engine, or a
 * proxy before it, that stalls in the middle of a body, or sends it a byte at a time, would hold the request
 * for ever; and OpenSearch's reads a chunked body of any size, so an endless one would fill the heap
 * (Elastic's has `maxResponseSize`, set beside this).
 */

/** OpenSearch's connections: the body must end within the timeout of its headers and hold at most `maxBytes`. */
export function boundedOpenSearchConnection(Base: typeof OpenSearchConnection, maxBytes: number): typeof OpenSearchConnection {
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

/**
 * Elastic's connections: the whole exchange is aborted twice the request's timeout (and a second: undici's
 * own timers are coarse, and an answer that never starts is its headers timeout's to report) after it started.
 */
export function boundedElasticConnection(Base: typeof UndiciConnection): typeof UndiciConnection {
  class BoundedConnection extends Base {
    // `request` has an overload per answer kind (buffered or a stream); both take the same options.
    override request(params: any, options: any): any {
      const deadline = AbortSignal.timeout(2 * (options.timeout ?? this.timeout ?? 30_000) + 1000);
      return super.request(params, { ...options, signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline });
    }
  }
  return BoundedConnection;
}
