import { execute, type GraphQLError, type GraphQLSchema } from 'graphql';
import { logger } from '../logger';
import type { Request } from 'express';
import { buildContext, type Context, type ContextDeps } from '../context';
import { badRequest, unauthenticated } from '../errors';
import { httpErrorFromGraphQL, type HttpError } from './envelopes';
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
  constructor(
    private readonly schema: GraphQLSchema,
    private readonly operations: OperationRegistry,
    private readonly deps: ContextDeps,
  ) {}

  /** A fresh context for the request; /v1 resources need a valid key before anything else is read. */
  async authenticated(req: Request): Promise<Context> {
    const ctx = await buildContext(this.deps, req.header('x-api-key'));
    if (!ctx.caller) throw unauthenticated();
    return ctx;
  }

  async run(contextValue: Context, operationName: string, variables: Record<string, unknown>): Promise<any> {
    const result = await execute({
      schema: this.schema,
      document: this.operations.get(operationName),
      operationName,
      variableValues: variables,
      contextValue,
    });
    if (result.errors?.length) {
      const http = httpErrorFromGraphQL(requestError(result.errors[0]));
      if (http.status === 500) logger.error({ err: result.errors[0].originalError ?? result.errors[0] }, 'REST operation failed');
      throw new RestError(http);
    }
    return (result.data as any).result;
  }
}
