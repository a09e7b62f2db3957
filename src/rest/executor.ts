import { Kind, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileOperation, inOperationSpan, runCompiled } from '../graphql/jit';
import type { CompiledQuery } from 'graphql-jit';
import { logger } from '../logger';
import type { Request } from 'express';
import { buildContext, type Context, type ContextDeps } from '../context';
import { badRequest, unauthenticated } from '../errors';
import { httpError, httpErrorFromGraphQL, httpErrorFromUnknown, type HttpError } from '../http/envelopes';
import { fromHttpError } from '../http/errors';
import { isTransactionConflict } from '../db/outage';
import { FAIR_SHARE_RETRY_AFTER_SECONDS, shareKey, type FairShare } from '../http/fair-share';
import type { OperationRegistry } from './operations';

/**
 * An error without a code and without a path is a request error: variables that do not coerce
 * (`opts[page]` beyond a 32-bit Int, a bounded JSON value). It comes from the client's input: 400.
 */
function requestError(error: GraphQLError): GraphQLError {
  if (error.extensions?.code !== undefined || error.path !== undefined) return error;
  return badRequest(error.message);
}

export class RestError extends Error {
  constructor(
    readonly http: HttpError,
    /** What the GraphQL error was raised for (a driver exception, an AppError), when it has one. */
    readonly original?: unknown,
  ) {
    super(`HTTP ${http.status}`);
  }
}

/**
 * Any error of a /v1 request as its SPEC 7 answer: a RestError's own, the vocabulary's (and HTTP errors
 * raised before a handler), else a 503 for a database outage or a logged 500.
 */
export function httpErrorOf(err: unknown): HttpError {
  if (err instanceof RestError) return err.http;
  const known = fromHttpError(err);
  if (known) return httpError(known.code, known.message, known.details);
  const http = httpErrorFromUnknown(err);
  if (http.status === 503) logger.warn({ err }, 'REST request failed: database unavailable');
  else logger.error({ err }, 'unhandled REST error');
  return http;
}

/** How a write's operation runs when its caller owns the transaction (src/rest/idempotency.ts). */
export interface RunOptions {
  /**
   * Takes the search engine's read-your-writes wait (`SearchBackend.afterWrite`) instead of awaiting it:
   * the write is not committed yet, so the caller runs it once its transaction has committed.
   */
  afterCommit?: (wait: () => Promise<void>) => void;
}

/** A batch operation's answer: each item's value, or the HTTP form of its error. */
export type ItemResult = { ok: true; value: any } | { ok: false; http: HttpError; original?: unknown };

/**
 * Runs a named REST operation in-process against the same schema and context builder as /graphql
 * (no HTTP hop). Returns the operation's `result` field; a GraphQL error becomes a RestError.
 */
export class RestExecutor {
  private readonly compiledOperations = new Map<string, { compiled: CompiledQuery; operation: OperationDefinitionNode }>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly operations: OperationRegistry,
    private readonly deps: ContextDeps,
    /** Each organisation's share of the process (src/http/fair-share.ts); none in tools that run one request. */
    private readonly fairShare?: FairShare,
  ) {}

  /**
   * The operation compiled by graphql-jit into a function of its own (the REST documents are fixed and
   * validated by the registry): it resolves the same schema, resolvers and graphql-shield rules as
   * graphql-js's `execute`, without graphql-js's per-field interpretation, about 15% of a list request's CPU.
   */
  private compiled(operationName: string): { compiled: CompiledQuery; operation: OperationDefinitionNode } {
    let entry = this.compiledOperations.get(operationName);
    if (!entry) {
      const document = this.operations.get(operationName);
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName)!;
      const compiled = compileOperation(this.schema, document, operation);
      if (typeof compiled === 'string') throw new Error(`REST operation ${operationName} does not compile: ${compiled}`);
      entry = { compiled, operation };
      this.compiledOperations.set(operationName, entry);
    }
    return entry;
  }

  /** A fresh context for the request; /v1 resources need a valid key before anything else is read. */
  async authenticated(req: Request): Promise<Context> {
    const ctx = await buildContext(this.deps, req.header('x-api-key'));
    if (!ctx.caller) throw unauthenticated();
    return ctx;
  }

  /** A new context for the same caller (a write run again from the start). */
  fresh(ctx: Context): Promise<Context> {
    return buildContext(this.deps, undefined, ctx.caller);
  }

  /** The ORM the contexts fork their EntityManager from. */
  get orm(): ContextDeps['orm'] {
    return this.deps.orm;
  }

  async run(contextValue: Context, operationName: string, variables: Record<string, unknown>): Promise<any> {
    return this.shared(contextValue, () => this.execute(contextValue, operationName, variables));
  }

  /** `work` within the caller's organisation's share of the process (429 when its queue is full). */
  async shared<T>(contextValue: Context, work: () => Promise<T>): Promise<T> {
    if (!this.fairShare || !contextValue.caller) return work();
    let release: () => void;
    try {
      release = await this.fairShare.enter(shareKey(contextValue.caller));
    } catch (e) {
      throw new RestError({ ...httpError('RATE_LIMITED', (e as Error).message), headers: { 'Retry-After': String(FAIR_SHARE_RETRY_AFTER_SECONDS) } });
    }
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** The operation's `result`, outside the fair share (`run` enters it; `shared` for a caller that did). */
  async execute(contextValue: Context, operationName: string, variables: Record<string, unknown>, options: RunOptions = {}): Promise<any> {
    const result = await this.raw(contextValue, operationName, variables, options);
    if (result.errors?.length) throw restError(result.errors[0]);
    return (result.data as any).result;
  }

  /**
   * A batch operation whose `result` is a list with one entry per item, run as `execute` runs one: an
   * error at an item's path (`result.<i>`) is that item's answer, any other error the request's.
   */
  async executeItems(contextValue: Context, operationName: string, variables: Record<string, unknown>, options: RunOptions = {}): Promise<ItemResult[]> {
    const result = await this.raw(contextValue, operationName, variables, options);
    const byItem = new Map<number, GraphQLError>();
    for (const error of result.errors ?? []) {
      const index = error.path?.length === 2 && error.path[0] === 'result' && typeof error.path[1] === 'number' ? error.path[1] : undefined;
      if (index === undefined) throw restError(error);
      if (!byItem.has(index)) byItem.set(index, error);
    }
    const items = ((result.data as any)?.result ?? []) as unknown[];
    return items.map((value, i) => {
      const error = byItem.get(i);
      if (!error) return { ok: true, value };
      const failed = restError(error);
      return { ok: false, http: failed.http, original: failed.original };
    });
  }

  private async raw(contextValue: Context, operationName: string, variables: Record<string, unknown>, options: RunOptions) {
    const { compiled, operation } = this.compiled(operationName);
    const writes = operation.operation === 'mutation';
    const writeMark = writes ? await contextValue.search.beforeWrite?.() : undefined;
    const result = await inOperationSpan(operation, () => runCompiled(compiled, this.schema, operation, contextValue, variables));
    // An acknowledged write is in the lists that follow it (read-your-writes on a search engine); a
    // batch's `result` is there when some of its items failed.
    if (writes && (result.data as any)?.result != null) {
      const wait = () => contextValue.search.afterWrite?.(writeMark) ?? Promise.resolve();
      if (options.afterCommit) options.afterCommit(wait);
      else await wait();
    }
    return result;
  }
}

/** A GraphQL error of a REST operation as its HTTP answer (500s are logged). */
function restError(error: GraphQLError): RestError {
  const http = httpErrorFromGraphQL(requestError(error));
  // A deadlock reaching here is run again by its idempotent write (src/rest/idempotency.ts).
  if (http.status === 500 && !isTransactionConflict(error.originalError)) logger.error({ err: error.originalError ?? error }, 'REST operation failed');
  return new RestError(http, error.originalError ?? error);
}
