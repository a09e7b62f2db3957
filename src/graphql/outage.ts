import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { isDatabaseUnavailable, outageError, RETRY_AFTER_SECONDS } from '../db/outage';

const isUnavailable = (e: GraphQLError) => e.extensions?.code === 'SERVICE_UNAVAILABLE' || isDatabaseUnavailable(e.originalError);

/** The formatted error of a database outage: code SERVICE_UNAVAILABLE instead of a masked internal error. */
export function formatUnavailable(formatted: GraphQLFormattedError, cause: unknown): GraphQLFormattedError {
  return { message: outageError(cause).message, locations: formatted.locations, path: formatted.path, extensions: { code: 'SERVICE_UNAVAILABLE' } };
}

/** A database outage while building the context (the API key lookup): 503 with `Retry-After`. */
export function contextUnavailable(error: unknown): unknown {
  if (!isDatabaseUnavailable(error)) return error;
  const e = outageError(error);
  e.extensions.http = { status: 503, headers: new HeaderMap([['retry-after', String(RETRY_AFTER_SECONDS)]]) };
  return e;
}

/** An operation that met a database outage answers 503 with `Retry-After`, as the REST facade does. */
export const serviceUnavailablePlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ errors, response }) {
        if (!errors.some(isUnavailable)) return;
        response.http.status = 503;
        response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      },
    };
  },
};
