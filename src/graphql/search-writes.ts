import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../context';

/**
 * Read-your-writes over /graphql: a mutation's response waits until its changes are searchable on a
 * search engine backend (`SearchBackend.afterWrite`, bounded by SEARCH_WRITE_WAIT_MS), as the REST
 * facade's writes do (`src/rest/executor.ts`): the outbox's newest row is noted before the mutation runs,
 * so that only the rows queued since are waited for. Nothing to wait for on PostgreSQL.
 */
export const searchWritesPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    // Set once a mutation's execution starts: one refused before it (validation, cost) wrote nothing.
    let write: { mark: string | null | undefined } | undefined;
    return {
      async executionDidStart({ operation, contextValue }) {
        if (operation.operation === 'mutation') write = { mark: await contextValue.search?.beforeWrite?.() };
      },
      async willSendResponse({ contextValue }) {
        if (write) await contextValue.search?.afterWrite?.(write.mark);
      },
    };
  },
};
