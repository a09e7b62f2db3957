import type { AppModule } from '../module';
import { LeadEventResolver } from './lead-events.resolver';
import { leadEventPolicy } from './lead-events.policy';
import { LeadEventHub } from './lead-events.hub';
import { serveSubscriptions } from './lead-events.ws';

/** The `leadEvents` subscription: the hub that hears committed lead events, served over WebSocket (graphql-ws). */
export const leadEventsModule: AppModule = {
  name: 'lead-events',
  resolvers: [LeadEventResolver],
  policies: [leadEventPolicy],
  async start({ deps, schema }) {
    const hub = new LeadEventHub(deps.orm.config.get('clientUrl')!);
    await hub.start();
    return {
      stop: () => hub.stop(),
      serve: (server) => serveSubscriptions(server, schema, deps, hub),
      subscriptions: () => hub.listenerCount,
    };
  },
};
