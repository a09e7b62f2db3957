import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../context';

/**
 * Read-your-writes over /graphql: a mutation's response waits until its changes are searchable on a
 * search engine backend (`SearchBackend.afterWrite`, bounded by SEARCH_WRITE_WAIT_MS), as the REST
 * facade's writes do (`src/rest/executor.ts`). Nothing to wait for on PostgreSQL.
 */
export const searchWritesPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async willSendResponse({ operation, contextValue }) {
        if (operation?.operation === 'mutation') await contextValue.search?.afterWrite?.();
      },
    };
  },
};
