import type { Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, parse, specifiedRules, validate, type GraphQLSchema } from 'graphql';
import { checkDocumentText, costValidationRules, operationCost } from '../../graphql/cost';
import { queryTooComplex } from '../../errors';
import { authenticate } from '../../auth/api-keys';
import { buildContext, type ContextDeps } from '../../context';
import { Loaders } from '../../db/loaders';
import type { LeadEventHub } from './lead-events.hub';
import type { LiveContext } from './lead-events.resolver';

/** The largest message a subscriber may send (a subscription document and its variables). */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** The key of a connection: `connection_init` payload `{"X-Api-Key": "..."}` (any case), else the upgrade request's header. */
function apiKeyOf(params: Readonly<Record<string, unknown>> | undefined, header: string | string[] | undefined): string | undefined {
  for (const [name, value] of Object.entries(params ?? {})) {
    if (typeof value === 'string' && ['x-api-key', 'apikey', 'api_key'].includes(name.toLowerCase())) return value;
  }
  return typeof header === 'string' ? header : undefined;
}

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on `/graphql` of `server`. A
 * connection without a valid key is refused at `connection_init` (close code 4403). Returns a stop
 * function that closes every connection.
 */
export function serveSubscriptions(server: Server, schema: GraphQLSchema, deps: ContextDeps, hub: LeadEventHub): () => Promise<void> {
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: MAX_MESSAGE_BYTES });
  const disposable = useServer<Record<string, unknown>>(
    {
      schema,
      // The same limits as /graphql over HTTP (src/graphql/cost.ts), in the same order: bytes, tokens and
      // expanded selections before any validation rule walks the document, then depth, aliases,
      // directives, then the cost.
      onSubscribe: (_ctx, _id, payload) => {
        const limits = deps.config.graphql;
        const refused = checkDocumentText(payload.query, limits);
        if (refused) return [refused];
        let document;
        try {
          document = parse(payload.query, { maxTokens: limits.maxTokens });
        } catch (e) {
          return [e instanceof GraphQLError ? e : new GraphQLError(String(e))];
        }
        const errors = validate(schema, document, [...specifiedRules, ...costValidationRules(limits)]);
        if (errors.length) return errors;
        const cost = operationCost(schema, document, payload.variables ?? undefined, payload.operationName ?? undefined, limits.listFactor);
        if (cost > limits.maxCost) return [queryTooComplex('cost', limits.maxCost, cost, 'GRAPHQL_MAX_COST')];
        return { schema, document, variableValues: payload.variables, operationName: payload.operationName };
      },
      onConnect: async (ctx) => {
        const key = apiKeyOf(ctx.connectionParams, ctx.extra.request.headers['x-api-key']);
        return !!(await authenticate(deps.orm.em.fork(), key));
      },
      context: async (ctx): Promise<LiveContext> => {
        const key = apiKeyOf(ctx.connectionParams, ctx.extra.request.headers['x-api-key']);
        const context = await buildContext(deps, key);
        return Object.assign(context, {
          live: {
            hub,
            async refresh() {
              context.em = deps.orm.em.fork() as typeof context.em;
              context.loaders = new Loaders(context.em);
              context.caller = await authenticate(context.em, key);
              return !!context.caller;
            },
          },
        });
      },
    },
    wss,
  );
  return async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
}
