import { Kind, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileOperation, runCompiled } from '../graphql/jit';
import type { CompiledQuery } from 'graphql-jit';
import { logger } from '../logger';
import type { Request } from 'express';
import { buildContext, type Context, type ContextDeps } from '../context';
import { badRequest, unauthenticated } from '../errors';
import { httpError, httpErrorFromGraphQL, type HttpError } from '../http/envelopes';
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
  constructor(readonly http: HttpError) {
    super(`HTTP ${http.status}`);
  }
}

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

  async run(contextValue: Context, operationName: string, variables: Record<string, unknown>): Promise<any> {
    if (!this.fairShare || !contextValue.caller) return this.execute(contextValue, operationName, variables);
    let release: () => void;
    try {
      release = await this.fairShare.enter(shareKey(contextValue.caller));
    } catch (e) {
      throw new RestError({ ...httpError('RATE_LIMITED', (e as Error).message), headers: { 'Retry-After': String(FAIR_SHARE_RETRY_AFTER_SECONDS) } });
    }
    try {
      return await this.execute(contextValue, operationName, variables);
    } finally {
      release();
    }
  }

  private async execute(contextValue: Context, operationName: string, variables: Record<string, unknown>): Promise<any> {
    const { compiled, operation } = this.compiled(operationName);
    const writeMark = operation.operation === 'mutation' ? await contextValue.search.beforeWrite?.() : undefined;
    const result = await runCompiled(compiled, this.schema, operation, contextValue, variables);
    if (result.errors?.length) {
      const http = httpErrorFromGraphQL(requestError(result.errors[0]));
      if (http.status === 500) logger.error({ err: result.errors[0].originalError ?? result.errors[0] }, 'REST operation failed');
      throw new RestError(http);
    }
    // An acknowledged write is in the lists that follow it (read-your-writes on a search engine).
    if (operation.operation === 'mutation') await contextValue.search.afterWrite?.(writeMark);
    return (result.data as any).result;
  }
}
