import type { IncomingMessage } from 'node:http';
import type { Connection as OpenSearchConnection } from '@opensearch-project/opensearch';
import type { UndiciConnection } from '@elastic/elasticsearch';
import type { Dispatcher } from 'undici';
import type { AnswerBudget } from '../../answer-budget';

/*
 * An engine answer, headers and body, must be complete within about twice the request's timeout, and the
 * answers a process is reading at once hold at most `SEARCH_MAX_RESPONSE_MB` together (`AnswerBudget`);
 * otherwise an answer is cut off, and the client reports the request as one that got no answer (for a
 * list: 503). Neither client bounds a whole answer on its own: their timeouts stop at the headers
 * (OpenSearch's) or measure the silence between two chunks (Elastic's), so an engine, or a proxy before
 * it, that stalls in the middle of a body, or sends it a byte at a time, would hold the request for ever;
 * OpenSearch's reads a chunked body of any size, and Elastic's `maxResponseSize` bounds one answer, not
 * the many a busy process reads at once from an engine that floods every one of them.
 */

/** OpenSearch's connections: the body must end within the timeout of its headers and fit in `budget`. */
export function boundedOpenSearchConnection(Base: typeof OpenSearchConnection, budget: AnswerBudget): typeof OpenSearchConnection {
  return class BoundedConnection extends Base {
    override request(params: Parameters<OpenSearchConnection['request']>[0], callback: Parameters<OpenSearchConnection['request']>[1]) {
      return super.request(params, (err, response) => {
        if (response) bound(response, (params as { timeout?: number }).timeout, budget);
        callback(err, response);
      });
    }
  };
}

function bound(response: IncomingMessage, timeoutMs: number | undefined, budget: AnswerBudget): void {
  const answer = budget.open((err) => response.destroy(err));
  const timer = timeoutMs ? setTimeout(() => response.destroy(new Error(`the engine's answer did not end within ${timeoutMs} ms`)), timeoutMs) : undefined;
  timer?.unref();
  // Counted before the client's own listener sees the chunk (both are added before the body flows).
  response.on('data', (chunk: Buffer | string) => answer.add(chunk.length));
  response.once('close', () => {
    clearTimeout(timer);
    answer.end();
  });
}

/**
 * Elastic's connections: the whole exchange is aborted twice the request's timeout (and a second: undici's
 * own timers are coarse, and an answer that never starts is its headers timeout's to report) after it
 * started, and its body's chunks are counted in `budget` as undici receives them (an interceptor of the
 * connection's pool).
 */
export function boundedElasticConnection(Base: typeof UndiciConnection, budget: AnswerBudget): typeof UndiciConnection {
  class BoundedConnection extends Base {
    constructor(...args: ConstructorParameters<typeof UndiciConnection>) {
      super(...args);
      const pool = this.pool as unknown as Dispatcher;
      this.pool = pool.compose((dispatch) => (options, handler) => dispatch(options, new BudgetedHandler(handler, budget))) as unknown as typeof this.pool;
    }

    // `request` has an overload per answer kind (buffered or a stream); both take the same options.
    override request(params: any, options: any): any {
      const deadline = AbortSignal.timeout(2 * (options.timeout ?? this.timeout ?? 30_000) + 1000);
      return super.request(params, { ...options, signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline });
    }
  }
  return BoundedConnection;
}

/** An undici request handler whose answer's body is counted in `budget`; everything else passes through. */
class BudgetedHandler implements Dispatcher.DispatchHandlers {
  private answer?: { add(bytes: number): void; end(): void };
  private abort?: (err?: Error) => void;
  private cutOff = false;

  constructor(
    private readonly handler: Dispatcher.DispatchHandlers,
    private readonly budget: AnswerBudget,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    this.handler.onConnect?.(abort);
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean {
    this.answer = this.budget.open((err) => {
      this.cutOff = true;
      this.abort?.(err);
    });
    return this.handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }

  onData(chunk: Buffer): boolean {
    this.answer?.add(chunk.length);
    if (this.cutOff) return false;
    return this.handler.onData?.(chunk) ?? true;
  }

  onComplete(trailers: string[] | null): void {
    this.answer?.end();
    this.handler.onComplete?.(trailers);
  }

  onError(err: Error): void {
    this.answer?.end();
    this.handler.onError?.(err);
  }

  onUpgrade(...args: Parameters<NonNullable<Dispatcher.DispatchHandlers['onUpgrade']>>): void {
    this.handler.onUpgrade?.(...args);
  }

  onResponseStarted(): void {
    this.handler.onResponseStarted?.();
  }

  onBodySent(...args: Parameters<NonNullable<Dispatcher.DispatchHandlers['onBodySent']>>): void {
    this.handler.onBodySent?.(...args);
  }
}
